// S3FileIO: table files on Amazon S3 or an S3-compatible server (MinIO,
// versitygw, …) at `s3://bucket/key` (and `s3a://`, as Hadoop and Spark
// write), on Arrow's S3 file system with the few requests Arrow cannot make
// signed by skade (s3_client.h). Settings: s3_config.h.
//
// How it keeps FileIO's promises (io/file_io.h):
// - Never overwrites. WriteFile (metadata files, manifests, small data
//   files) is one PUT with `If-None-Match: *`, so a concurrent writer of the
//   same key gets kAlreadyExists from the server itself. A server that does
//   not implement conditional writes (501) is detected once and then, unless
//   `s3.conditional-writes=true` demands them, checked with a HEAD first —
//   a check, not a guarantee, which skade's unique file names make enough.
//   NewOutputFile checks with a HEAD when it opens (S3 cannot make a
//   multipart upload conditional through Arrow).
// - WriteFiles sends its PUTs at once (up to 8 in flight, on threads that
//   keep their connections): a commit's manifests and manifest list cost
//   one round trip, not one each.
// - Streamed files are one PUT when they end below Arrow's part size
//   (10 MiB) and a multipart upload otherwise, its parts sent in the
//   background while the writer goes on, at most `s3.multipart.parts-in-
//   flight` of them held at once: Write waits when that many are pending, so
//   a writer's memory is bounded by part size × parts in flight. Close
//   completes the upload; an OutputFile dropped without Close, or whose
//   Close fails, aborts it, so no incomplete upload is left behind.
// - Durable when written: a completed PUT is durable on S3, so `durable`
//   asks for nothing more and SyncFile, SyncDirectory and SyncFiles have
//   nothing to do (OK). There is no fsync to pretend.
// - There are no directories: ListDirectory lists a prefix (a "directory"
//   exists while some key lies under it) and RemoveEmptyDirectory does
//   nothing.
// - Throttling, 5xx answers and dropped connections are retried with
//   back-off (retry_policy.h), by Arrow's calls and skade's alike.
//
// Thread-safe.
#pragma once

#include <memory>

#include "skade/io/file_io.h"
#include "skade/io/file_io_registry.h"
#include "skade/s3/s3_client.h"
#include "skade/s3/s3_config.h"
#include "skade/util/result.h"

namespace skade::s3 {

/// A new S3FileIO with `properties` (s3_config.h). kInvalidArgument for bad
/// settings; the server is not contacted.
Result<std::shared_ptr<io::FileIO>> NewS3FileIO(const io::FileIOProperties& properties);

/// The credentials an S3FileIO made with `properties` signs with, at each
/// call (static ones, or the AWS default chain's current ones; kForbidden
/// when there are none): what the REST server vends, or signs STS requests
/// with. Thread-safe.
Result<CredentialsSource> NewCredentialsSource(const io::FileIOProperties& properties);

/// Makes `registry` serve `s3` and `s3a` locations with NewS3FileIO. Call it
/// once before using the registry (skade's CLI does, at start).
void RegisterS3FileIO(io::FileIORegistry& registry);

/// Shuts Arrow's S3 layer down if an S3FileIO started it, which Arrow needs
/// before the process exits (else it may crash at exit). Call it once, after
/// every S3FileIO is gone; S3 cannot be used afterwards.
void FinalizeS3();

}  // namespace skade::s3
