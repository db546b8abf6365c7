//! The time-travel scenarios (bench/README.md "Time travel") for iceberg-rust, the way the crate
//! can answer them: it has no commit log, so a table as of a snapshot is the current metadata if it
//! still holds the snapshot, else the first of the metadata log's files (newest first, read through
//! the table's FileIO and deserialised as `TableMetadata`) that does.
//!
//! Population: `--history-tables` tables, round-robin, one `fast_append` (no data files; it writes a
//! manifest list) per commit that also expires the table's oldest snapshot beyond the last
//! `--keep-snapshots` (`expire_snapshots` in the same transaction), until `--commits` commits or
//! `--populate-seconds`. The metadata log keeps write.metadata.previous-versions-max files (default
//! 100): keys are drawn among the snapshots it can reach, and the records say how many it cannot.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use iceberg::spec::TableMetadata;
use iceberg::table::Table;
use iceberg::transaction::{ApplyTransactionAction, Transaction};
use iceberg::{Catalog, NamespaceIdent, TableIdent};
use serde_json::json;

use crate::{Config, Error, Measured, Op, create_table, measure, open, pick, record_measured};

const NAMESPACE: &str = "bench_history";

fn ident(table: usize) -> TableIdent {
    TableIdent::new(
        NamespaceIdent::new(NAMESPACE.to_string()),
        format!("h{table:05}"),
    )
}

/// One commit: the expiry of `expire` (the oldest snapshot beyond the last few) and a fast append,
/// in one transaction. Single-threaded population: a conflict is an error.
async fn append_expiring(
    catalog: &dyn Catalog,
    ident: &TableIdent,
    expire: Option<i64>,
) -> Result<i64, Error> {
    let table = catalog.load_table(ident).await?;
    let mut tx = Transaction::new(&table);
    // The expiry first: each action's requirements are checked after the actions before it, and
    // the append moves `main`, which the expiry asserts.
    if let Some(oldest) = expire {
        // Pinning the age cutoff to the epoch expires by id alone.
        tx = tx
            .expire_snapshots()
            .expire_snapshot_ids([oldest])
            .expire_older_than_ms(0)
            .apply(tx)?;
    }
    let properties = HashMap::from([("bench".to_string(), "time-travel".to_string())]);
    let tx = tx
        .fast_append()
        .set_snapshot_properties(properties)
        .apply(tx)?;
    let table = tx.commit(catalog).await?;
    Ok(table
        .metadata()
        .current_snapshot_id()
        .ok_or("no current snapshot after an append")?)
}

/// The previous metadata files of `table`, newest first, read until `done` says stop; counts reads.
async fn walk_log(
    table: &Table,
    reads: &AtomicU64,
    mut done: impl FnMut(&TableMetadata) -> bool,
) -> Result<(), Error> {
    for entry in table.metadata().metadata_log().iter().rev() {
        let bytes = table
            .file_io()
            .new_input(&entry.metadata_file)?
            .read()
            .await?;
        reads.fetch_add(1, Ordering::Relaxed);
        let metadata: TableMetadata = serde_json::from_slice(&bytes)?;
        if done(&metadata) {
            break;
        }
    }
    Ok(())
}

async fn load_at(
    catalog: &dyn Catalog,
    ident: &TableIdent,
    snapshot_id: i64,
    reads: &AtomicU64,
) -> Result<(), Error> {
    let table = catalog.load_table(ident).await?;
    if table.metadata().snapshot_by_id(snapshot_id).is_some() {
        return Ok(());
    }
    let mut found = false;
    walk_log(&table, reads, |metadata| {
        found = metadata.snapshot_by_id(snapshot_id).is_some();
        found
    })
    .await?;
    if found {
        Ok(())
    } else {
        Err(format!("snapshot {snapshot_id} of {ident} not in its metadata log").into())
    }
}

/// Many lookups grouped by table: one load and at most one walk of the log per table.
async fn plan(
    catalog: &dyn Catalog,
    keys: &[(usize, i64)],
    reads: &AtomicU64,
) -> Result<(), Error> {
    let mut by_table: HashMap<usize, HashSet<i64>> = HashMap::new();
    for &(table, snapshot_id) in keys {
        by_table.entry(table).or_default().insert(snapshot_id);
    }
    for (table_index, mut left) in by_table {
        let table = catalog.load_table(&ident(table_index)).await?;
        left.retain(|s| table.metadata().snapshot_by_id(*s).is_none());
        if !left.is_empty() {
            walk_log(&table, reads, |metadata| {
                left.retain(|s| metadata.snapshot_by_id(*s).is_none());
                left.is_empty()
            })
            .await?;
        }
        if !left.is_empty() {
            return Err(format!(
                "{} snapshots of table {table_index} not in its log",
                left.len()
            )
            .into());
        }
    }
    Ok(())
}

fn emit(
    cfg: &Config,
    scenario: &str,
    result: Result<Measured, Error>,
    extra: serde_json::Value,
    notes: &str,
) -> bool {
    let mut record = json!({
        "target": cfg.target(), "scenario": scenario, "threads": 1, "run_id": cfg.run_id,
        "catalog_tables": cfg.history_tables, "durability": "none", "notes": notes,
    });
    let ok = record_measured(&mut record, result);
    if ok {
        if let (Some(record), Some(extra)) = (record.as_object_mut(), extra.as_object()) {
            for (key, value) in extra {
                record.insert(key.clone(), value.clone());
            }
        }
    }
    println!("{record}");
    eprintln!(
        "{}: {scenario} {}",
        cfg.target(),
        if ok { "done" } else { "FAILED" }
    );
    ok
}

pub async fn run(cfg: Arc<Config>) -> Result<bool, Error> {
    let catalog = open(&cfg, true).await?;
    catalog
        .create_namespace(&NamespaceIdent::new(NAMESPACE.to_string()), HashMap::new())
        .await?;
    let tables = cfg.history_tables;
    for t in 0..tables {
        create_table(catalog.as_ref(), &ident(t)).await?;
    }
    let mut live: Vec<Vec<i64>> = vec![Vec::new(); tables];
    let mut history: Vec<Vec<i64>> = vec![Vec::new(); tables];
    let mut samples_ns = Vec::new();
    let began = Instant::now();
    let deadline = began + Duration::from_secs_f64(cfg.populate_seconds);
    let mut last_progress = began;
    while (samples_ns.len() as u64) < cfg.commits && Instant::now() < deadline {
        let t = samples_ns.len() % tables;
        let expire = if live[t].len() >= cfg.keep_snapshots {
            Some(live[t].remove(0))
        } else {
            None
        };
        let start = Instant::now();
        let snapshot_id = append_expiring(catalog.as_ref(), &ident(t), expire).await?;
        samples_ns.push(start.elapsed().as_nanos() as u64);
        live[t].push(snapshot_id);
        history[t].push(snapshot_id);
        if last_progress.elapsed() >= Duration::from_secs(5) {
            last_progress = Instant::now();
            let elapsed = began.elapsed().as_secs_f64();
            eprintln!(
                "{}: populated {} commits in {elapsed:.0} s ({:.0} commits/s)",
                cfg.target(),
                samples_ns.len(),
                samples_ns.len() as f64 / elapsed
            );
        }
    }
    let populate = began.elapsed();
    let commits = samples_ns.len() as u64;
    let until = if commits < cfg.commits {
        "the time budget"
    } else {
        "the commit count"
    };
    let mut ok = emit(
        &cfg,
        "populate_history",
        Ok(Measured {
            ops: commits,
            wall: populate,
            samples_ns,
        }),
        json!({"commits": commits, "seconds": populate.as_secs_f64(),
               "commits_per_table": commits as f64 / tables as f64}),
        &format!(
            "{tables} tables, round-robin fast_append (no data files; writes a manifest list) with \
             expire_snapshots of the oldest snapshot beyond the last {} in the same transaction, \
             until {until} ({:.0} s or {} commits) was reached; one task; MemoryCatalog, files \
             fsynced by iceberg-rust's local FS",
            cfg.keep_snapshots, cfg.populate_seconds, cfg.commits
        ),
    );

    // What iceberg-rust can reach: the current metadata and the files its metadata log names.
    let reads = Arc::new(AtomicU64::new(0));
    let mut reachable: Vec<(usize, i64)> = Vec::new();
    for (t, snapshots) in history.iter().enumerate() {
        let table = catalog.load_table(&ident(t)).await?;
        let mut seen: HashSet<i64> = table
            .metadata()
            .snapshots()
            .map(|s| s.snapshot_id())
            .collect();
        walk_log(&table, &reads, |metadata| {
            seen.extend(metadata.snapshots().map(|s| s.snapshot_id()));
            false
        })
        .await?;
        reachable.extend(
            snapshots
                .iter()
                .filter(|s| seen.contains(s))
                .map(|&s| (t, s)),
        );
    }
    if reachable.is_empty() {
        return Err("no reachable snapshot".into());
    }
    let reachable = Arc::new(reachable);
    let unreachable = commits - reachable.len() as u64;
    let shape = format!(
        "{commits} commits over {tables} tables (what iceberg-rust populated in the budget; a \
         smaller history only favours it); keys drawn among the {} snapshots its metadata log can \
         reach ({unreachable} it cannot: write.metadata.previous-versions-max, default 100)",
        reachable.len()
    );
    let reach = |reads_per_op: f64| {
        json!({"commit_log_commits": commits, "reachable_snapshots": reachable.len(),
               "unreachable_snapshots": unreachable, "file_reads_per_op": reads_per_op})
    };
    let limit = Duration::from_secs_f64(cfg.seconds);
    let calls = Arc::new(AtomicU64::new(0));

    reads.store(0, Ordering::Relaxed);
    let op: Op = {
        let (catalog, reachable, reads, calls) = (
            catalog.clone(),
            reachable.clone(),
            reads.clone(),
            calls.clone(),
        );
        Arc::new(move |thread, iteration| {
            let (catalog, reachable, reads, calls) = (
                catalog.clone(),
                reachable.clone(),
                reads.clone(),
                calls.clone(),
            );
            Box::pin(async move {
                let (table, snapshot_id) = reachable[pick(thread, iteration, reachable.len())];
                calls.fetch_add(1, Ordering::Relaxed);
                load_at(catalog.as_ref(), &ident(table), snapshot_id, &reads).await
            })
        })
    };
    let measured = measure(1, cfg.ops, cfg.warmup, limit, op).await;
    let per_op = reads.load(Ordering::Relaxed) as f64 / calls.load(Ordering::Relaxed).max(1) as f64;
    ok &= emit(
        &cfg,
        "load_table_at_snapshot",
        measured,
        reach(per_op),
        &format!(
            "load the table, look for the snapshot in its metadata, else read the metadata log's \
             files newest first (FileIO + serde TableMetadata) until one holds it — the newest \
             file holding it, which takes fewer reads than the file that committed it; {shape}"
        ),
    );

    reads.store(0, Ordering::Relaxed);
    calls.store(0, Ordering::Relaxed);
    let keys_per_call = cfg.keys_per_call;
    let op: Op = {
        let (catalog, reachable, reads, calls) = (
            catalog.clone(),
            reachable.clone(),
            reads.clone(),
            calls.clone(),
        );
        Arc::new(move |thread, iteration| {
            let (catalog, reachable, reads, calls) = (
                catalog.clone(),
                reachable.clone(),
                reads.clone(),
                calls.clone(),
            );
            Box::pin(async move {
                let keys: Vec<(usize, i64)> = (0..keys_per_call as u64)
                    .map(|k| {
                        reachable[pick(
                            thread,
                            iteration * keys_per_call as u64 + k,
                            reachable.len(),
                        )]
                    })
                    .collect();
                calls.fetch_add(1, Ordering::Relaxed);
                plan(catalog.as_ref(), &keys, &reads).await
            })
        })
    };
    let measured = measure(1, cfg.batch_ops, 1, limit, op).await;
    let per_op = reads.load(Ordering::Relaxed) as f64 / calls.load(Ordering::Relaxed).max(1) as f64;
    let mut extra = reach(per_op);
    if let Ok(m) = &measured {
        extra["keys_per_call"] = json!(keys_per_call);
        extra["ns_per_key"] =
            json!(m.wall.as_nanos() as f64 / (m.ops.max(1) as f64 * keys_per_call as f64));
    }
    ok &= emit(
        &cfg,
        "batch_load_planning",
        measured,
        extra,
        &format!(
            "{keys_per_call} random reachable (table, snapshot) keys per op, grouped by table: one \
             load and at most one walk of the metadata log per table (no file read twice in a \
             call); {shape}"
        ),
    );
    Ok(ok)
}
