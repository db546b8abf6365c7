"""The S3 server the S3 tests run against (tests/interop/s3_fixtures.py) does what they rely on:
objects written by one S3 client read back by another, and conditional writes (`If-None-Match: *`),
which an object-store catalog needs to create a file only if it does not exist."""
import boto3
import botocore.config
import botocore.exceptions
import pyarrow.fs


def s3_client(minio):
    return boto3.client(
        "s3", endpoint_url=minio.endpoint, aws_access_key_id=minio.access_key,
        aws_secret_access_key=minio.secret_key, region_name=minio.region,
        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


def test_write_and_read_an_object(minio):
    bucket = minio.make_bucket("s3-server-roundtrip")
    fs = pyarrow.fs.S3FileSystem(
        endpoint_override=minio.endpoint.removeprefix("http://"), scheme="http",
        access_key=minio.access_key, secret_key=minio.secret_key, region=minio.region)
    payload = b"skade" * 1000
    with fs.open_output_stream(f"{bucket}/dir/object.bin") as out:
        out.write(payload)
    with fs.open_input_stream(f"{bucket}/dir/object.bin") as stream:
        assert stream.read() == payload
    assert fs.get_file_info(f"{bucket}/dir/object.bin").size == len(payload)
    # Another client, SigV4 over plain HTTP, sees the same bytes.
    assert s3_client(minio).get_object(Bucket=bucket, Key="dir/object.bin")["Body"].read() == payload


def test_put_if_none_match_refuses_an_existing_key(minio):
    bucket = minio.make_bucket("s3-server-conditional")
    s3 = s3_client(minio)
    s3.put_object(Bucket=bucket, Key="metadata/v1.json", Body=b"first", IfNoneMatch="*")
    try:
        s3.put_object(Bucket=bucket, Key="metadata/v1.json", Body=b"second", IfNoneMatch="*")
    except botocore.exceptions.ClientError as e:
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 412, e.response
    else:
        raise AssertionError("a conditional PUT over an existing key was accepted")
    assert s3.get_object(Bucket=bucket, Key="metadata/v1.json")["Body"].read() == b"first"
