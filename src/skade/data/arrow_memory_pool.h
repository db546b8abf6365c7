// Which allocator Arrow's buffers come from in skade's processes.
#pragma once

namespace skade::data {

/// Makes jemalloc Arrow's default memory pool, unless the user chose one with
/// ARROW_DEFAULT_MEMORY_POOL (mimalloc, jemalloc or system) or this Arrow was
/// built without it. Call first thing in main(): Arrow reads the variable
/// once, when something first allocates through its default pool.
///
/// Why: Arrow's own default, mimalloc, hands freed memory back to the system
/// within milliseconds, so reading and encoding a large file faults in and
/// zeroes fresh (huge) pages over and over. Measured on a 2-core VM:
/// `skade ingest` of a 68 MB Parquet file spent 42% of its CPU zeroing pages
/// and took 2.0-2.6 s; with jemalloc, which keeps freed memory for a second,
/// 1.2-1.6 s.
void PreferJemallocArrowPool();

}  // namespace skade::data
