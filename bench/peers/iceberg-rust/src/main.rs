//! The iceberg-rust peer of skade's benchmark harness: the scenarios of bench/README.md against
//! iceberg-rust's `MemoryCatalog` or `SqlCatalog` (SQLite), one JSON line per measured scenario on
//! stdout, progress on stderr.
//!
//! Usage: skade-bench-iceberg-rust --catalog memory|sql --warehouse DIR --run-id ID
//!            [--tables N] [--tables-per-namespace K] [--threads N] [--ops N]
//!            [--commit-ops N] [--seconds S] [--warmup N]
//!        skade-bench-iceberg-rust --scenario coalesce --catalog memory|sql --warehouse DIR
//!            --run-id ID [--writers N] [--writes-per-writer K] [--rows R]
//!            [--coalesce-tables T] [--seconds S]            (coalesce.rs)
//!        skade-bench-iceberg-rust --scenario time-travel --catalog memory|sql --warehouse DIR
//!            --run-id ID [--history-tables T] [--commits N] [--populate-seconds S]
//!            [--keep-snapshots K] [--ops N] [--seconds S] [--warmup N] [--keys-per-call N]
//!            [--batch-ops N]                                (time_travel.rs)

mod coalesce;
mod time_travel;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use iceberg::io::LocalFsStorageFactory;
use iceberg::memory::{MEMORY_CATALOG_WAREHOUSE, MemoryCatalogBuilder};
use iceberg::spec::{NestedField, PrimitiveType, Schema, Type};
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::{Catalog, CatalogBuilder, ErrorKind, NamespaceIdent, TableCreation, TableIdent};
use iceberg_catalog_sql::{
    SQL_CATALOG_PROP_BIND_STYLE, SQL_CATALOG_PROP_URI, SQL_CATALOG_PROP_WAREHOUSE, SqlBindStyle,
    SqlCatalogBuilder,
};
use serde_json::json;

type Error = Box<dyn std::error::Error + Send + Sync>;
type OpFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;
/// One operation of a scenario: (thread index, iteration) -> its future.
type Op = Arc<dyn Fn(usize, u64) -> OpFuture + Send + Sync>;

struct Config {
    catalog: String,
    warehouse: String,
    run_id: String,
    tables: usize,
    tables_per_namespace: usize,
    threads: usize,
    ops: u64,
    commit_ops: u64,
    seconds: f64,
    warmup: u64,
    /// "catalog" (every scenario above) or "coalesce" (coalesce.rs).
    scenario: String,
    writers: usize,
    writes_per_writer: u64,
    rows: u64,
    coalesce_tables: usize,
    /// time_travel.rs: the history's tables, commits (upper bound), population time budget,
    /// snapshots kept live per table, keys per batch call, timed batch calls (upper bound).
    history_tables: usize,
    commits: u64,
    populate_seconds: f64,
    keep_snapshots: usize,
    keys_per_call: usize,
    batch_ops: u64,
}

impl Config {
    fn parse() -> Result<Config, Error> {
        let mut values: HashMap<String, String> = HashMap::new();
        let mut args = std::env::args().skip(1);
        while let Some(key) = args.next() {
            let name = key
                .strip_prefix("--")
                .ok_or(format!("unexpected argument {key}"))?;
            let value = args.next().ok_or(format!("{key} needs a value"))?;
            values.insert(name.to_string(), value);
        }
        let text = |name: &str| {
            values
                .get(name)
                .cloned()
                .ok_or(format!("--{name} is required"))
        };
        let number = |name: &str, default: u64| -> Result<u64, Error> {
            Ok(values
                .get(name)
                .map(|v| v.parse())
                .transpose()?
                .unwrap_or(default))
        };
        Ok(Config {
            catalog: text("catalog")?,
            warehouse: text("warehouse")?,
            run_id: text("run-id")?,
            tables: number("tables", 200)? as usize,
            tables_per_namespace: number("tables-per-namespace", 100)?.max(1) as usize,
            threads: number("threads", 2)?.max(1) as usize,
            ops: number("ops", 20_000)?,
            commit_ops: number("commit-ops", 200)?,
            seconds: values
                .get("seconds")
                .map(|v| v.parse())
                .transpose()?
                .unwrap_or(2.0),
            warmup: number("warmup", 100)?,
            scenario: values
                .get("scenario")
                .cloned()
                .unwrap_or("catalog".to_string()),
            writers: number("writers", 16)?.max(1) as usize,
            writes_per_writer: number("writes-per-writer", 1)?.max(1),
            rows: number("rows", 1)?.max(1),
            coalesce_tables: number("coalesce-tables", 1)?.max(1) as usize,
            history_tables: number("history-tables", 10)?.max(1) as usize,
            commits: number("commits", 1_000_000)?,
            populate_seconds: values
                .get("populate-seconds")
                .map(|v| v.parse())
                .transpose()?
                .unwrap_or(240.0),
            keep_snapshots: number("keep-snapshots", 5)?.max(1) as usize,
            keys_per_call: number("keys-per-call", 1000)?.max(1) as usize,
            batch_ops: number("batch-ops", 100)?,
        })
    }

    fn target(&self) -> String {
        format!("iceberg-rust-{}", self.catalog)
    }
}

/// A deterministic, well-spread index for (thread, iteration): uniform random table choice
/// without per-thread generator state.
fn pick(thread: usize, iteration: u64, bound: usize) -> usize {
    let mut z = ((thread as u64) << 40 ^ iteration).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % bound as u64) as usize
}

fn namespace(cfg: &Config, table: usize) -> NamespaceIdent {
    NamespaceIdent::new(format!("bench_ns{:03}", table / cfg.tables_per_namespace))
}

fn table_ident(cfg: &Config, table: usize) -> TableIdent {
    TableIdent::new(namespace(cfg, table), format!("t{table:05}"))
}

fn schema() -> Schema {
    Schema::builder()
        .with_fields(vec![
            NestedField::required(1, "id", Type::Primitive(PrimitiveType::Long)).into(),
            NestedField::optional(2, "data", Type::Primitive(PrimitiveType::String)).into(),
        ])
        .build()
        .expect("valid schema")
}

async fn create_table(catalog: &dyn Catalog, ident: &TableIdent) -> Result<(), Error> {
    let creation = TableCreation::builder()
        .name(ident.name().to_string())
        .schema(schema())
        .build();
    catalog.create_table(ident.namespace(), creation).await?;
    Ok(())
}

/// A snapshot append as iceberg-rust clients make it: load, fast-append with no data files (allowed
/// with snapshot properties; it still writes a manifest list), commit with the crate's own retry
/// and backoff. When those retries give up on a conflict, start over (as the other targets' clients
/// do) and count it in `conflicts`.
async fn append(
    catalog: &dyn Catalog,
    ident: &TableIdent,
    conflicts: &AtomicU64,
) -> Result<(), Error> {
    loop {
        let table = catalog.load_table(ident).await?;
        let tx = Transaction::new(&table);
        let properties = HashMap::from([("bench".to_string(), "append".to_string())]);
        let tx = tx
            .fast_append()
            .set_snapshot_properties(properties)
            .apply(tx)?;
        match tx.commit(catalog).await {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == ErrorKind::CatalogCommitConflicts => {
                conflicts.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

async fn open(cfg: &Config, fresh: bool) -> Result<Arc<dyn Catalog>, Error> {
    let dir = format!("{}/{}", cfg.warehouse, cfg.catalog);
    std::fs::create_dir_all(&dir)?;
    let warehouse = format!("file://{dir}/tables");
    let storage = Arc::new(LocalFsStorageFactory);
    match cfg.catalog.as_str() {
        "memory" => {
            let props = HashMap::from([(MEMORY_CATALOG_WAREHOUSE.to_string(), warehouse)]);
            let builder = MemoryCatalogBuilder::default().with_storage_factory(storage);
            Ok(Arc::new(builder.load("bench", props).await?))
        }
        "sql" => {
            let db = format!("{dir}/catalog.db");
            if fresh {
                let _ = std::fs::remove_file(&db);
            }
            let props = HashMap::from([
                (
                    SQL_CATALOG_PROP_URI.to_string(),
                    format!("sqlite:{db}?mode=rwc"),
                ),
                (SQL_CATALOG_PROP_WAREHOUSE.to_string(), warehouse),
                (
                    SQL_CATALOG_PROP_BIND_STYLE.to_string(),
                    SqlBindStyle::QMark.to_string(),
                ),
            ]);
            let builder = SqlCatalogBuilder::default().with_storage_factory(storage);
            Ok(Arc::new(builder.load("bench", props).await?))
        }
        other => Err(format!("unknown --catalog {other} (memory or sql)").into()),
    }
}

struct Measured {
    ops: u64,
    wall: Duration,
    samples_ns: Vec<u64>,
}

/// How long one op may take before its scenario is reported as failed: the time bound applies
/// between ops, and a commit retry storm must not hold the whole run.
const OP_TIMEOUT: Duration = Duration::from_secs(60);

async fn run_op(op: &Op, thread: usize, iteration: u64) -> Result<(), Error> {
    match tokio::time::timeout(OP_TIMEOUT, op(thread, iteration)).await {
        Ok(result) => result,
        Err(_) => Err(format!("one op took longer than {}s", OP_TIMEOUT.as_secs()).into()),
    }
}

/// Runs `op` on `threads` tasks: `warmup` untimed ops each, a barrier, then timed ops until
/// `ops` in total are done or `limit` has passed.
async fn measure(
    threads: usize,
    ops: u64,
    warmup: u64,
    limit: Duration,
    op: Op,
) -> Result<Measured, Error> {
    let barrier = Arc::new(tokio::sync::Barrier::new(threads));
    let per_thread = ops.div_ceil(threads as u64);
    let mut tasks = Vec::new();
    for thread in 0..threads {
        let (barrier, op) = (barrier.clone(), op.clone());
        tasks.push(tokio::spawn(async move {
            let mut warm = Ok(());
            for i in 0..warmup {
                if let Err(e) = run_op(&op, thread, i).await {
                    warm = Err(e);
                    break;
                }
            }
            // Every task must reach the barrier, or the others wait forever.
            barrier.wait().await;
            warm?;
            let start = Instant::now();
            let deadline = start + limit;
            let mut samples = Vec::with_capacity(per_thread.min(1 << 20) as usize);
            for i in 0..per_thread {
                let began = Instant::now();
                if began >= deadline {
                    break;
                }
                run_op(&op, thread, warmup + i).await?;
                samples.push(began.elapsed().as_nanos() as u64);
            }
            Ok::<_, Error>((start, Instant::now(), samples))
        }));
    }
    let mut first_start: Option<Instant> = None;
    let mut last_end: Option<Instant> = None;
    let mut samples_ns = Vec::new();
    // Join every task before reporting a failure, so none outlives its scenario.
    let mut finished = Vec::new();
    for task in tasks {
        finished.push(task.await?);
    }
    for result in finished {
        let (start, end, samples) = result?;
        first_start = Some(first_start.map_or(start, |s| s.min(start)));
        last_end = Some(last_end.map_or(end, |e| e.max(end)));
        samples_ns.extend(samples);
    }
    let wall = last_end.unwrap() - first_start.unwrap();
    Ok(Measured {
        ops: samples_ns.len() as u64,
        wall,
        samples_ns,
    })
}

/// The nearest-rank percentile in microseconds.
/// A record's ops, ops/s and percentiles from `result`, or its error (ops 0). True if measured.
fn record_measured(record: &mut serde_json::Value, result: Result<Measured, Error>) -> bool {
    match result {
        Ok(mut m) => {
            m.samples_ns.sort_unstable();
            let secs = m.wall.as_secs_f64();
            record["ops"] = json!(m.ops);
            record["ops_per_sec"] = json!(if secs > 0.0 { m.ops as f64 / secs } else { 0.0 });
            record["p50_us"] = json!(percentile_us(&m.samples_ns, 0.50));
            record["p99_us"] = json!(percentile_us(&m.samples_ns, 0.99));
            record["p999_us"] = json!(percentile_us(&m.samples_ns, 0.999));
            true
        }
        Err(e) => {
            record["ops"] = json!(0);
            record["error"] = json!(e.to_string());
            false
        }
    }
}

fn percentile_us(sorted_ns: &[u64], p: f64) -> f64 {
    if sorted_ns.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted_ns.len() as f64).ceil() as usize).clamp(1, sorted_ns.len());
    sorted_ns[rank - 1] as f64 / 1000.0
}

struct Reporter<'a> {
    cfg: &'a Config,
    durability: &'static str,
}

impl Reporter<'_> {
    /// `conflicts` is given for write scenarios only.
    fn emit(
        &self,
        scenario: &str,
        variant: &str,
        threads: usize,
        result: Result<Measured, Error>,
        notes: &str,
        conflicts: Option<&AtomicU64>,
    ) {
        let mut record = json!({
            "target": self.cfg.target(), "scenario": scenario, "variant": variant,
            "threads": threads, "run_id": self.cfg.run_id, "catalog_tables": self.cfg.tables,
            "durability": self.durability, "notes": notes,
        });
        if let Some(conflicts) = conflicts {
            record["conflicts"] = json!(conflicts.load(Ordering::Relaxed));
        }
        record_measured(&mut record, result);
        println!("{record}");
        eprintln!(
            "{}: {scenario} {variant} threads={threads} done",
            self.cfg.target()
        );
    }
}

/// A scenario operation built from a closure over the shared catalog and config.
fn op<F, Fut>(f: F) -> Op
where
    F: Fn(usize, u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), Error>> + Send + 'static,
{
    Arc::new(move |thread, iteration| Box::pin(f(thread, iteration)))
}

async fn run(cfg: Arc<Config>) -> Result<(), Error> {
    let catalog = open(&cfg, true).await?;
    let started = Instant::now();
    let namespaces = cfg.tables.div_ceil(cfg.tables_per_namespace);
    for n in 0..namespaces {
        catalog
            .create_namespace(
                &namespace(&cfg, n * cfg.tables_per_namespace),
                HashMap::new(),
            )
            .await?;
    }
    for name in ["bench_create", "bench_commit"] {
        catalog
            .create_namespace(&NamespaceIdent::new(name.to_string()), HashMap::new())
            .await?;
    }
    for t in 0..cfg.tables {
        create_table(catalog.as_ref(), &table_ident(&cfg, t)).await?;
    }
    eprintln!(
        "{}: {} tables created in {:.1}s",
        cfg.target(),
        cfg.tables,
        started.elapsed().as_secs_f64()
    );
    // Written out before measuring, as every driver does (bench/README.md): the kernel's writeback
    // of the populate's files would otherwise take a core from the first scenarios.
    std::process::Command::new("sync").status()?;

    let durability = if cfg.catalog == "sql" {
        "peer-default"
    } else {
        "none"
    };
    let reporter = Reporter {
        cfg: &cfg,
        durability,
    };
    let limit = Duration::from_secs_f64(cfg.seconds);
    let no_cache =
        "iceberg-rust keeps no metadata cache: every load reads and parses the metadata file";

    // Cold: every op is the first load of its table by this catalog instance (a fresh one for SQL;
    // the memory catalog cannot be reopened without losing its tables).
    let cold = if cfg.catalog == "sql" {
        open(&cfg, false).await?
    } else {
        catalog.clone()
    };
    // Every population table's identifier, built once before any timed op (as every driver does,
    // bench/README.md): a scenario times the catalog's call, not the formatting of a name.
    let idents: Arc<Vec<TableIdent>> =
        Arc::new((0..cfg.tables).map(|t| table_ident(&cfg, t)).collect());
    let cold_ops = cfg.ops.min(cfg.tables as u64);
    let (c, ids) = (cold.clone(), idents.clone());
    let result = measure(
        1,
        cold_ops,
        0,
        limit,
        op(move |_, i| {
            let (c, ids, index) = (c.clone(), ids.clone(), i as usize);
            async move {
                c.load_table(&ids[index])
                    .await
                    .map(|_| ())
                    .map_err(Into::into)
            }
        }),
    )
    .await;
    reporter.emit("load_table_cold", "", 1, result, no_cache, None);

    // 1, 2 (the scaling target compares 2 threads with 1) and N.
    let thread_counts: std::collections::BTreeSet<usize> =
        [1, cfg.threads.min(2), cfg.threads].into();
    for &threads in &thread_counts {
        let (c, ids) = (catalog.clone(), idents.clone());
        let result = measure(
            threads,
            cfg.ops,
            cfg.warmup,
            limit,
            op(move |t, i| {
                let (c, ids, index) = (c.clone(), ids.clone(), pick(t, i, ids.len()));
                async move {
                    c.load_table(&ids[index])
                        .await
                        .map(|_| ())
                        .map_err(Into::into)
                }
            }),
        )
        .await;
        reporter.emit("load_table_warm", "", threads, result, no_cache, None);
    }
    for &threads in &thread_counts {
        let (c, ids) = (catalog.clone(), idents.clone());
        let result = measure(
            threads,
            cfg.ops,
            cfg.warmup,
            limit,
            op(move |t, i| {
                let (c, ids, index) = (c.clone(), ids.clone(), pick(t, i, ids.len()));
                async move {
                    match c.table_exists(&ids[index]).await? {
                        true => Ok(()),
                        false => Err(format!("{} reported missing", ids[index]).into()),
                    }
                }
            }),
        )
        .await;
        reporter.emit("table_exists", "", threads, result, "", None);
    }
    let (c, ids) = (catalog.clone(), idents.clone());
    let result = measure(
        1,
        cfg.ops,
        cfg.warmup,
        limit,
        op(move |t, i| {
            let (c, ids, index) = (c.clone(), ids.clone(), pick(t, i, ids.len()));
            async move {
                c.list_tables(ids[index].namespace())
                    .await
                    .map(|_| ())
                    .map_err(Into::into)
            }
        }),
    )
    .await;
    let per_ns = format!("{} tables per namespace", cfg.tables_per_namespace);
    reporter.emit("list_tables", "", 1, result, &per_ns, None);
    let c = catalog.clone();
    let result = measure(
        1,
        cfg.ops,
        cfg.warmup,
        limit,
        op(move |_, _| {
            let c = c.clone();
            async move {
                c.list_namespaces(None)
                    .await
                    .map(|_| ())
                    .map_err(Into::into)
            }
        }),
    )
    .await;
    reporter.emit(
        "list_namespaces",
        "",
        1,
        result,
        &format!("{} namespaces", namespaces + 2),
        None,
    );

    let write_warmup = cfg.warmup.min(2);
    let c = catalog.clone();
    let result = measure(
        1,
        cfg.commit_ops,
        write_warmup,
        limit,
        op(move |t, i| {
            let c = c.clone();
            let ident = TableIdent::new(
                NamespaceIdent::new("bench_create".into()),
                format!("c{t}_{i}"),
            );
            async move { create_table(c.as_ref(), &ident).await }
        }),
    )
    .await;
    reporter.emit("create_table", "", 1, result, "", None);

    let pointers = if cfg.catalog == "sql" {
        "SQLite through sqlx defaults"
    } else {
        "memory"
    };
    let commit_note = format!(
        "fast_append with no data files (writes a manifest list); load + commit per op, the crate's \
         own retry with backoff on conflicts; files fsynced by iceberg-rust's local FS, table \
         pointers in {pointers}"
    );
    let mut commit_cases = vec![(1, "same_table")];
    for threads in [cfg.threads, 16] {
        if threads > 1 && !commit_cases.contains(&(threads, "different_tables")) {
            commit_cases.push((threads, "same_table"));
            commit_cases.push((threads, "different_tables"));
        }
    }
    for (case, &(threads, variant)) in commit_cases.iter().enumerate() {
        let tables: Vec<TableIdent> = (0..if variant == "same_table" { 1 } else { threads })
            .map(|t| {
                TableIdent::new(
                    NamespaceIdent::new("bench_commit".into()),
                    format!("k{case}_{t}"),
                )
            })
            .collect();
        for ident in &tables {
            create_table(catalog.as_ref(), ident).await?;
        }
        // Each write case starts with the page cache clean, as every driver does (bench/README.md).
        std::process::Command::new("sync").status()?;
        let (c, tables, n) = (
            catalog.clone(),
            Arc::new(tables),
            Arc::new(AtomicU64::new(0)),
        );
        let conflicts = n.clone();
        let result = measure(
            threads,
            cfg.commit_ops,
            write_warmup,
            limit,
            op(move |t, _| {
                let (c, tables, n) = (c.clone(), tables.clone(), n.clone());
                async move { append(c.as_ref(), &tables[t % tables.len()], &n).await }
            }),
        )
        .await;
        reporter.emit(
            "commit",
            variant,
            threads,
            result,
            &commit_note,
            Some(&conflicts),
        );
    }

    std::process::Command::new("sync").status()?;
    let (c, ids, n) = (catalog.clone(), idents.clone(), Arc::new(AtomicU64::new(0)));
    let conflicts = n.clone();
    let result = measure(
        cfg.threads,
        cfg.ops,
        cfg.warmup,
        limit,
        op(move |t, i| {
            let (c, ids, n) = (c.clone(), ids.clone(), n.clone());
            let index = pick(t, i, ids.len());
            let commit = pick(t, i ^ 0x5EED, 10) == 0;
            async move {
                match commit {
                    true => append(c.as_ref(), &ids[index], &n).await,
                    false => c
                        .load_table(&ids[index])
                        .await
                        .map(|_| ())
                        .map_err(Into::into),
                }
            }
        }),
    )
    .await;
    let note = "90% load_table, 10% commit on random tables";
    reporter.emit(
        "mixed_90_10",
        "",
        cfg.threads,
        result,
        note,
        Some(&conflicts),
    );
    Ok(())
}

#[tokio::main]
async fn main() {
    let cfg = match Config::parse() {
        Ok(cfg) => Arc::new(cfg),
        Err(e) => {
            eprintln!("skade-bench-iceberg-rust: {e}");
            std::process::exit(2);
        }
    };
    let result = match cfg.scenario.as_str() {
        "coalesce" => coalesce::run(cfg).await,
        "time-travel" => time_travel::run(cfg).await,
        _ => run(cfg).await.map(|_| true),
    };
    match result {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("skade-bench-iceberg-rust: {e}");
            std::process::exit(1);
        }
    }
}
