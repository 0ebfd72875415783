// How the journal's layouts compare in bare redb 4.6, without the store around them: the
// experiment behind docs/performance.md, "Round three, sixth stop". Not built with the project:
//   cargo new redbexp && cd redbexp && cargo add redb@=4.6.0 tempfile
//   cp THIS_FILE src/main.rs && cargo build --release && LIMIT=64 target/release/redbexp 500
// Each side makes 500 placements (two durable commits each) in ten alternating rounds:
// A bare redb rewriting 100 keys (the old baseline), B bare redb adding keys to a table of
// 1,020 records (the new one), C format 2's layout, D the used mark and the outcome as small
// rows, E no preview written at all, F and G a table of recent records settled past LIMIT
// rows (F with small rows, G with whole records, as format 3 writes them).
use redb::{Database, TableDefinition, ReadableTable, ReadableTableMetadata};
use std::time::{Duration, Instant};
const U: TableDefinition<u64, &[u8]> = TableDefinition::new("records");
const R: TableDefinition<&[u8], &[u8]> = TableDefinition::new("trading");
const H: TableDefinition<&[u8], &[u8]> = TableDefinition::new("hot");

fn key(tag: u8, rest: &[u8]) -> Vec<u8> { let mut k = vec![tag]; k.extend_from_slice(rest); k }

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(500);
    let rounds = 10u64;
    let each = n / rounds;
    let dir = tempfile::tempdir_in(std::env::var("EXPDIR").unwrap_or("/tmp".into())).unwrap();
    let pv = vec![b'x'; 950];
    let entry = vec![b'e'; 900];
    let small = vec![b's'; 60];
    let seeds = n * 2 + 20;
    // A: bare as today
    let a = Database::create(dir.path().join("a.redb")).unwrap();
    // B: bare growing, seeded
    let b = Database::create(dir.path().join("b.redb")).unwrap();
    { let tx = b.begin_write().unwrap(); { let mut t = tx.open_table(U).unwrap(); for i in 0..seeds { t.insert(1_000_000 + i, pv.as_slice()).unwrap(); } } tx.commit().unwrap(); }
    // C,D,E: product layout, seeded with previews
    let mk = |name: &str| { let d = Database::create(dir.path().join(name)).unwrap();
        let tx = d.begin_write().unwrap(); { let mut t = tx.open_table(R).unwrap(); for i in 0..seeds { t.insert(key(b'p', format!("pv-{i}").as_bytes()).as_slice(), pv.as_slice()).unwrap(); } tx.open_table(H).unwrap(); } tx.commit().unwrap(); d };
    let c = mk("c.redb"); let d = mk("d.redb"); let e = mk("e.redb"); let f = mk("f.redb"); let g = mk("g.redb"); let limit: u64 = std::env::var("LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    let mut next_b = 0u64; let mut next = [0u64; 5];
    let mut times = [Duration::ZERO; 7];
    let usage = key(b'l', b"\xff\xff\xff\x00sandbox\x1fbench\x1facct");
    for r in 0..rounds+1 {
        let m = if r == 0 { 10 } else { each };
        // A
        let s = Instant::now();
        for i in 0..m { for k in 0..2 { let tx = a.begin_write().unwrap(); { let mut t = tx.open_table(U).unwrap(); t.insert(i*2+k, pv.as_slice()).unwrap(); } tx.commit().unwrap(); } }
        if r > 0 { times[0] += s.elapsed(); }
        // B
        let s = Instant::now();
        for _ in 0..m { for _ in 0..2 { let tx = b.begin_write().unwrap(); { let mut t = tx.open_table(U).unwrap(); t.insert(next_b, pv.as_slice()).unwrap(); next_b += 1; } tx.commit().unwrap(); } }
        if r > 0 { times[1] += s.elapsed(); }
        // C: product today: claim rewrites preview, inserts entry, counter, usage; outcome rewrites entry
        for (idx, db) in [&c, &d, &e, &f, &g].into_iter().enumerate() {
            let s = Instant::now();
            for _ in 0..m {
                let id = next[idx]; next[idx] += 1;
                let jk = key(b'j', &(id+1).to_be_bytes());
                let pk = key(b'p', format!("pv-{id}").as_bytes());
                let tx = db.begin_write().unwrap();
                {
                    let mut t = tx.open_table(R).unwrap();
                    let _ = t.get(pk.as_slice()).unwrap().map(|v| v.value().len());
                    match idx {
                        0 => { t.insert(pk.as_slice(), pv.as_slice()).unwrap(); t.insert(jk.as_slice(), entry.as_slice()).unwrap(); }
                        // D: used marker next to the journal (key u+preview sorts after l? use 'm'), entry
                        1 => { t.insert(key(b'm', &pk).as_slice(), small.as_slice()).unwrap(); t.insert(jk.as_slice(), entry.as_slice()).unwrap(); }
                        // E: no preview write at all (floor)
                        2 => { t.insert(jk.as_slice(), entry.as_slice()).unwrap(); }
                        // F: hot table for entry+marker+counter+usage
                        4 => { let mut h = tx.open_table(H).unwrap(); let _ = h.get(pk.as_slice()).unwrap().map(|v| v.value().len()); h.insert(pk.as_slice(), pv.as_slice()).unwrap(); h.insert(jk.as_slice(), entry.as_slice()).unwrap(); h.insert(b"k".as_slice(), b"12345".as_slice()).unwrap(); h.insert(usage.as_slice(), small.as_slice()).unwrap(); }
                        _ => { let mut h = tx.open_table(H).unwrap(); h.insert(key(b'm', &pk).as_slice(), small.as_slice()).unwrap(); h.insert(jk.as_slice(), entry.as_slice()).unwrap(); h.insert(b"k".as_slice(), b"12345".as_slice()).unwrap(); h.insert(usage.as_slice(), small.as_slice()).unwrap(); }
                    }
                    if idx < 3 { t.insert(b"k".as_slice(), b"12345".as_slice()).unwrap(); t.insert(usage.as_slice(), small.as_slice()).unwrap(); }
                }
                tx.commit().unwrap();
                let tx = db.begin_write().unwrap();
                {
                    if idx >= 3 {
                        let mut h = tx.open_table(H).unwrap();
                        if idx == 3 { let mut ok = jk.clone(); ok.push(b'o');
                        h.insert(ok.as_slice(), small.as_slice()).unwrap(); } else { let _ = h.get(jk.as_slice()).unwrap().map(|v| v.value().len()); h.insert(jk.as_slice(), entry.as_slice()).unwrap(); }
                        if h.len().unwrap() > limit { // fold
                            let rows: Vec<(Vec<u8>, Vec<u8>)> = h.iter().unwrap().map(|x| { let (k,v)=x.unwrap(); (k.value().to_vec(), v.value().to_vec()) }).collect();
                            let mut t = tx.open_table(R).unwrap();
                            for (k,v) in rows { t.insert(k.as_slice(), v.as_slice()).unwrap(); }
                            drop(t); h.retain(|_,_| false).unwrap();
                        }
                    } else {
                        let mut t = tx.open_table(R).unwrap();
                        if idx == 0 { let _ = t.get(jk.as_slice()).unwrap().map(|v| v.value().len()); t.insert(jk.as_slice(), entry.as_slice()).unwrap(); }
                        else { let mut ok = jk.clone(); ok.push(b'o'); t.insert(ok.as_slice(), small.as_slice()).unwrap(); }
                    }
                }
                tx.commit().unwrap();
            }
            if r > 0 { times[2+idx] += s.elapsed(); }
        }
    }
    let tot = (rounds*each) as f64;
    let names = ["A bare today", "B bare growing", "C product today", "D marker+small outcome", "E no preview write", "F hot table", "G hot full rows"];
    for (i, t) in times.iter().enumerate() { println!("{:26} {:7.1} us/placement  A/x {:.3}  B/x {:.3}", names[i], t.as_secs_f64()*1e6/tot, times[0].as_secs_f64()/t.as_secs_f64(), times[1].as_secs_f64()/t.as_secs_f64()); }
}
