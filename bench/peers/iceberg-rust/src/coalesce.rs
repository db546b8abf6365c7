//! The `coalesce` scenario (bench/README.md) for iceberg-rust: every logical write is its own
//! Parquet data file (iceberg-rust's `DataFileWriter`) and its own `fast_append` commit.
//!
//! `--writers` tasks on the runtime's threads each make `--writes-per-writer` writes of `--rows`
//! rows, writer w's k-th write into table (w + k) mod `--coalesce-tables`. A commit that still
//! conflicts after the crate's own retries is redone from a fresh load with the same data file
//! and counted in `conflicts`. At the end every table must hold exactly the acknowledged rows (the
//! planned files' record counts and the snapshot's total-records), or the record carries an error
//! and the process exits 1.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use futures::TryStreamExt;
use iceberg::arrow::schema_to_arrow_schema;
use iceberg::spec::{DataFile, DataFileFormat};
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::writer::base_writer::data_file_writer::DataFileWriterBuilder;
use iceberg::writer::file_writer::ParquetWriterBuilder;
use iceberg::writer::file_writer::location_generator::{
    DefaultFileNameGenerator, DefaultLocationGenerator,
};
use iceberg::writer::file_writer::rolling_writer::RollingFileWriterBuilder;
use iceberg::writer::{IcebergWriter, IcebergWriterBuilder};
use iceberg::{Catalog, ErrorKind, NamespaceIdent, TableIdent};
use parquet::file::properties::WriterProperties;
use serde_json::json;

use crate::{Config, Error, create_table, open, percentile_us};

const NAMESPACE: &str = "bench_coalesce";

fn ident(table: usize) -> TableIdent {
    TableIdent::new(
        NamespaceIdent::new(NAMESPACE.to_string()),
        format!("c{table:02}"),
    )
}

fn batch(table: &Table, first: u64, rows: u64) -> Result<RecordBatch, Error> {
    let schema = schema_to_arrow_schema(table.metadata().current_schema())?;
    let ids: Vec<i64> = (first..first + rows).map(|i| i as i64).collect();
    let data: Vec<String> = ids.iter().map(|i| format!("row-{i}")).collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids)),
        Arc::new(StringArray::from(data)),
    ];
    Ok(RecordBatch::try_new(Arc::new(schema), columns)?)
}

async fn write_data_file(
    table: &Table,
    batch: RecordBatch,
    prefix: String,
) -> Result<Vec<DataFile>, Error> {
    let parquet = ParquetWriterBuilder::new(
        WriterProperties::builder().build(),
        table.metadata().current_schema().clone(),
    );
    let rolling = RollingFileWriterBuilder::new_with_default_file_size(
        parquet,
        table.file_io().clone(),
        DefaultLocationGenerator::new(table.metadata())?,
        DefaultFileNameGenerator::new(prefix, None, DataFileFormat::Parquet),
    );
    let mut writer = DataFileWriterBuilder::new(rolling).build(None).await?;
    writer.write(batch).await?;
    Ok(writer.close().await?)
}

/// One logical write: its data file, then a fast append of it, redone on a conflict.
async fn write(
    catalog: &dyn Catalog,
    ident: &TableIdent,
    first: u64,
    rows: u64,
    prefix: String,
    conflicts: &AtomicU64,
) -> Result<usize, Error> {
    let table = catalog.load_table(ident).await?;
    let files = write_data_file(&table, batch(&table, first, rows)?, prefix).await?;
    let count = files.len();
    let mut table = table;
    loop {
        let tx = Transaction::new(&table);
        let tx = tx.fast_append().add_data_files(files.clone()).apply(tx)?;
        match tx.commit(catalog).await {
            Ok(_) => return Ok(count),
            Err(e) if e.kind() == ErrorKind::CatalogCommitConflicts => {
                conflicts.fetch_add(1, Ordering::Relaxed);
                table = catalog.load_table(ident).await?;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

async fn table_rows(catalog: &dyn Catalog, ident: &TableIdent) -> Result<(u64, u64), Error> {
    let table = catalog.load_table(ident).await?;
    let Some(snapshot) = table.metadata().current_snapshot() else {
        return Ok((0, 0));
    };
    let total = snapshot
        .summary()
        .additional_properties
        .get("total-records")
        .map(|v| v.parse())
        .transpose()?
        .unwrap_or(0);
    let tasks: Vec<_> = table
        .scan()
        .build()?
        .plan_files()
        .await?
        .try_collect()
        .await?;
    let live = tasks.iter().map(|t| t.record_count.unwrap_or(0)).sum();
    Ok((live, total))
}

/// The process's peak resident set (VmHWM) in MiB, 0 if unknown.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

pub async fn run(cfg: Arc<Config>) -> Result<bool, Error> {
    let catalog = open(&cfg, true).await?;
    catalog
        .create_namespace(&NamespaceIdent::new(NAMESPACE.to_string()), HashMap::new())
        .await?;
    for t in 0..cfg.coalesce_tables {
        create_table(catalog.as_ref(), &ident(t)).await?;
    }
    let (writers, per_writer, rows) = (cfg.writers, cfg.writes_per_writer, cfg.rows);
    let conflicts = Arc::new(AtomicU64::new(0));
    let barrier = Arc::new(tokio::sync::Barrier::new(writers));
    let began = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..writers {
        let (catalog, cfg, conflicts, barrier) = (
            catalog.clone(),
            cfg.clone(),
            conflicts.clone(),
            barrier.clone(),
        );
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            let deadline = Instant::now() + std::time::Duration::from_secs_f64(cfg.seconds);
            let mut latencies = Vec::new();
            let mut table_rows = vec![0u64; cfg.coalesce_tables];
            let (mut files, mut errors, mut first_error) = (0usize, 0u64, String::new());
            for k in 0..per_writer {
                let start = Instant::now();
                if start >= deadline {
                    break;
                }
                let t = (w + k as usize) % cfg.coalesce_tables;
                let first = (w as u64 * per_writer + k) * rows;
                let prefix = format!("w{w:04}-k{k:04}");
                let result =
                    write(catalog.as_ref(), &ident(t), first, rows, prefix, &conflicts).await;
                match result {
                    Ok(count) => {
                        latencies.push(start.elapsed().as_nanos() as u64);
                        table_rows[t] += rows;
                        files += count;
                    }
                    Err(e) => {
                        errors += 1;
                        if first_error.is_empty() {
                            first_error = e.to_string();
                        }
                    }
                }
            }
            (
                latencies,
                table_rows,
                files,
                errors,
                first_error,
                Instant::now(),
            )
        }));
    }
    let mut latencies = Vec::new();
    let mut expected = vec![0u64; cfg.coalesce_tables];
    let (mut files, mut errors, mut first_error) = (0usize, 0u64, String::new());
    let mut last_end = began;
    for task in tasks {
        let (l, r, f, e, fe, end) = task.await?;
        latencies.extend(l);
        for (t, rows) in r.into_iter().enumerate() {
            expected[t] += rows;
        }
        files += f;
        errors += e;
        if first_error.is_empty() {
            first_error = fe;
        }
        last_end = last_end.max(end);
    }
    let wall = (last_end - began).as_secs_f64();

    let mut error = String::new();
    if errors > 0 {
        error = format!("{errors} writes failed; the first: {first_error}");
    } else {
        for (t, rows) in expected.iter().enumerate() {
            let (live, total) = table_rows(catalog.as_ref(), &ident(t)).await?;
            if live != *rows || total != *rows {
                error = format!(
                    "verification failed: table {} holds {live} rows in its live data files and total-records {total}, but {rows} rows were acknowledged",
                    ident(t)
                );
                break;
            }
        }
    }

    latencies.sort_unstable();
    let ops = latencies.len() as u64;
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let tables = cfg.coalesce_tables as u64;
    let mut record = json!({
        "run_id": cfg.run_id, "target": cfg.target(), "scenario": "coalesce",
        "variant": format!("{rows}_row{}/{tables}_table{}", plural(rows), plural(tables)),
        "threads": writers, "durability": if cfg.catalog == "sql" { "peer-default" } else { "none" },
        "rows_per_write": rows, "tables": tables, "writes_per_writer": per_writer,
        "acknowledged_writes": ops, "physical_commits": ops,
        "physical_commits_per_sec": if wall > 0.0 { ops as f64 / wall } else { 0.0 },
        "data_files": files, "conflicts": conflicts.load(Ordering::Relaxed), "errors": errors,
        "wall_seconds": wall, "peak_rss_mb": peak_rss_mb(),
        "notes": "DataFileWriter (Parquet) + fast_append per write, tokio tasks on the runtime's worker threads; conflicts = commits redone from a fresh load after the crate's retries",
    });
    if error.is_empty() {
        record["ops"] = json!(ops);
        record["ops_per_sec"] = json!(if wall > 0.0 { ops as f64 / wall } else { 0.0 });
        record["p50_us"] = json!(percentile_us(&latencies, 0.50));
        record["p99_us"] = json!(percentile_us(&latencies, 0.99));
        record["p999_us"] = json!(percentile_us(&latencies, 0.999));
    } else {
        record["ops"] = json!(0);
        record["error"] = json!(error);
        eprintln!("{}: coalesce: {error}", cfg.target());
    }
    println!("{record}");
    Ok(error.is_empty())
}
