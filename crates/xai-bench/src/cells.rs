//! Finished cells on disk, so that a run survives an interruption and splits into
//! shards.
//!
//! A cell is one (variant, replicate) task of the runner (for molnar2023 Table 1
//! one (scenario, experiment)), or one Monte-Carlo truth. Each finished cell is one
//! file: `XAICELL1`, then the postcard encoding of (owner, name, seconds, payload)
//! compressed with deflate (fast level: a molnar2023 Table 1 cell shrinks from 77 to
//! about 10 kB, so the paper scale's 120,000 cells take about 1.2 GB), then the
//! sha256 of everything before it. It is written to a temporary file in the
//! same directory, flushed to the disk, then renamed into place, so a reader sees no
//! file or a whole one; a file that is cut short or altered (a copy interrupted, a
//! disk that lost a write) fails its checksum and is computed again, never read as
//! data. postcard keeps every f64 bit for bit (NaN included), so numbers read back
//! are the numbers computed.
//!
//! A run directory's cells belong to one [`RunKey`] (experiment, the YAML fields that
//! determine the numbers, scale, code), recorded in its `run.json`; a run with another
//! key refuses the directory ([`claim`]) instead of mixing the two.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use sha2::{Digest, Sha256};

use crate::error::{BenchError, Result, io_err};
use crate::plan::{Experiment, Scale};

/// The first bytes of every cell file (format version 1).
const MAGIC: &[u8; 8] = b"XAICELL1";

/// The version of the code that computes the numbers: the sha256 (first 16 hex digits)
/// of the running executable, so any rebuild that can change a number changes it
/// (and a rebuild that changes nothing leaves it).
pub fn code_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        std::env::current_exe()
            .and_then(std::fs::read)
            .map(|bytes| format!("{:x}", Sha256::digest(bytes))[..16].to_string())
            .unwrap_or_else(|_| format!("unknown-{}", env!("CARGO_PKG_VERSION")))
    })
}

/// What a run directory's cells belong to; two runs with equal keys compute equal
/// cells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunKey {
    /// The id of the experiment that computes the cells
    /// ([`Experiment::computing_id`]).
    pub id: String,
    /// sha256 of the YAML fields that determine the numbers
    /// ([`Experiment::computation`]).
    pub computation: String,
    /// Those fields, to say which changed.
    pub fields: serde_json::Map<String, serde_json::Value>,
    /// `smoke`, `ci` or `paper`.
    pub scale: String,
    /// [`code_version`].
    pub code: String,
    /// Git commit of the checkout, when known (information only).
    pub git_commit: Option<String>,
    /// `Some((k, N))` for shard k of N.
    pub shard: Option<(usize, usize)>,
    /// The processor's SIMD level ([`crate::workspace::simd_level`]): the linear
    /// algebra picks its kernels by it at run time, and levels can differ in the last
    /// bits, so cells of one run (and the shards of one merge) share it. Empty in a
    /// key written before it was recorded.
    #[serde(default)]
    pub simd: String,
}

impl RunKey {
    /// The key of `exp` at `scale` (shard `shard`) with this executable.
    pub fn of(exp: &Experiment, scale: Scale, shard: Option<Shard>) -> RunKey {
        RunKey {
            id: exp.computing_id().to_string(),
            computation: exp.computation(),
            fields: exp.computation_fields(),
            scale: scale.name().to_string(),
            code: code_version().to_string(),
            git_commit: crate::workspace::git_commit(),
            shard: shard.map(|s| (s.k, s.n)),
            simd: crate::workspace::simd_level().to_string(),
        }
    }

    /// The key without its shard: what the shards of one run share.
    pub fn unsharded(&self) -> RunKey {
        RunKey {
            shard: None,
            git_commit: None,
            ..self.clone()
        }
    }

    /// In words, how `self` (found on disk) differs from `now`, the run asking; empty
    /// when its cells may be used. The git commit is not compared: the executable's
    /// hash decides.
    pub fn differences(&self, now: &RunKey) -> Vec<String> {
        let mut out = Vec::new();
        if self.id != now.id {
            out.push(format!("experiment `{}`, not `{}`", self.id, now.id));
        }
        if self.scale != now.scale {
            out.push(format!("scale {}, not {}", self.scale, now.scale));
        }
        if self.computation != now.computation {
            let mut keys: Vec<&String> = self.fields.keys().chain(now.fields.keys()).collect();
            keys.sort();
            keys.dedup();
            let changed: Vec<String> = keys
                .into_iter()
                .filter(|k| self.fields.get(*k) != now.fields.get(*k))
                .map(|k| format!("`{k}`"))
                .collect();
            out.push(format!(
                "the YAML changed since (fields {})",
                if changed.is_empty() {
                    "unknown".to_string()
                } else {
                    changed.join(", ")
                }
            ));
        }
        if self.code != now.code {
            out.push(format!(
                "other code (executable {} at git {}, this is {} at git {})",
                self.code,
                self.git_commit.as_deref().unwrap_or("?"),
                now.code,
                now.git_commit.as_deref().unwrap_or("?")
            ));
        }
        if self.simd != now.simd {
            out.push(format!(
                "computed on a processor of SIMD level {}, not {} (the linear algebra's \
                 last bits can differ between levels: run every shard of a run on nodes of \
                 one kind, e.g. with Slurm's --constraint)",
                if self.simd.is_empty() {
                    "unknown"
                } else {
                    &self.simd
                },
                now.simd
            ));
        }
        if self.shard != now.shard {
            let name = |s: Option<(usize, usize)>| {
                s.map_or("the whole run".to_string(), |(k, n)| {
                    format!("shard {k}/{n}")
                })
            };
            out.push(format!("{}, not {}", name(self.shard), name(now.shard)));
        }
        out
    }
}

/// `--shard k/N`: the cells whose index i (in the run's order) has i mod N = k − 1.
/// Dealing cells round-robin gives every shard a like share of every variant, so
/// shards take about equally long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based index (Slurm's `$SLURM_ARRAY_TASK_ID` with `--array=1-N`).
    pub k: usize,
    /// Number of shards.
    pub n: usize,
}

impl Shard {
    /// Parses `k/N` with 1 ≤ k ≤ N.
    pub fn parse(s: &str) -> Result<Shard> {
        let bad = || {
            BenchError::Usage(format!(
                "--shard `{s}`: write k/N with 1 <= k <= N, e.g. --shard 2/8"
            ))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether cell `index` is this shard's.
    pub fn owns(&self, index: usize) -> bool {
        index % self.n == self.k - 1
    }

    /// The shard's directory name under a run's directory: `shard-k-of-N`.
    pub fn dir_name(&self) -> String {
        format!("shard-{}-of-{}", self.k, self.n)
    }
}

/// A directory of cell files belonging to one owner (a [`RunKey`], or for the shared
/// truths the code version).
#[derive(Debug, Clone)]
pub struct CellStore {
    dir: PathBuf,
    owner: String,
}

/// What reading a cell found.
#[derive(Debug)]
pub enum Found<T> {
    /// No file: not computed yet.
    Missing,
    /// A file that is cut short, fails its checksum or belongs to another owner:
    /// to be computed again.
    Unusable(String),
    /// A whole cell: its payload and the seconds it took to compute.
    Cell(T, f64),
}

#[derive(Serialize, Deserialize)]
struct Envelope<T> {
    owner: String,
    name: String,
    seconds: f64,
    payload: T,
}

impl CellStore {
    /// A store of `owner`'s cells in `dir` (created when missing).
    pub fn open(dir: &Path, owner: String) -> Result<CellStore> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        Ok(CellStore {
            dir: dir.to_path_buf(),
            owner,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.cell"))
    }

    /// Writes cell `name` atomically: a temporary file, flushed to the disk, renamed.
    pub fn write<T: Serialize>(&self, name: &str, seconds: f64, payload: &T) -> Result<()> {
        let envelope = Envelope {
            owner: self.owner.clone(),
            name: name.to_string(),
            seconds,
            payload,
        };
        let encoded = postcard::to_stdvec(&envelope).map_err(|e| BenchError::Encode {
            cell: name.to_string(),
            message: format!("encoding: {e}"),
        })?;
        let mut deflate =
            flate2::write::DeflateEncoder::new(MAGIC.to_vec(), flate2::Compression::fast());
        let mut bytes = {
            use std::io::Write;
            deflate
                .write_all(&encoded)
                .and_then(|_| deflate.finish())
                .map_err(|e| BenchError::Encode {
                    cell: name.to_string(),
                    message: format!("compressing: {e}"),
                })?
        };
        let sum = Sha256::digest(&bytes);
        bytes.extend_from_slice(&sum);
        let path = self.path(name);
        let tmp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp).map_err(io_err(&tmp))?;
            f.write_all(&bytes).map_err(io_err(&tmp))?;
            f.sync_all().map_err(io_err(&tmp))?;
        }
        std::fs::rename(&tmp, &path).map_err(io_err(&path))
    }

    /// Reads cell `name`, checking its checksum, owner and name.
    pub fn read<T: DeserializeOwned>(&self, name: &str) -> Result<Found<T>> {
        let path = self.path(name);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Missing),
            Err(e) => return Err(io_err(&path)(e)),
        };
        Ok(decode(&bytes, &self.owner, name))
    }

    /// The names of the cell files present (whole or not), sorted.
    pub fn names(&self) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(io_err(&self.dir))? {
            let entry = entry.map_err(io_err(&self.dir))?;
            let name = entry.file_name().to_string_lossy().to_string();
            if let Some(stem) = name.strip_suffix(".cell") {
                out.push(stem.to_string());
            }
        }
        out.sort();
        Ok(out)
    }
}

/// The payload of a cell file's bytes, or why it cannot be used.
fn decode<T: DeserializeOwned>(bytes: &[u8], owner: &str, name: &str) -> Found<T> {
    if bytes.len() < MAGIC.len() + 32 || &bytes[..MAGIC.len()] != MAGIC {
        return Found::Unusable(format!("{} bytes, not a whole cell file", bytes.len()));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 32);
    if Sha256::digest(body).as_slice() != sum {
        return Found::Unusable("checksum mismatch (torn or altered)".into());
    }
    let mut encoded = Vec::new();
    if let Err(e) = std::io::Read::read_to_end(
        &mut flate2::read::DeflateDecoder::new(&body[MAGIC.len()..]),
        &mut encoded,
    ) {
        return Found::Unusable(format!("cannot decompress: {e}"));
    }
    match postcard::from_bytes::<Envelope<T>>(&encoded) {
        Err(e) => Found::Unusable(format!("undecodable: {e}")),
        Ok(e) if e.owner != owner || e.name != name => Found::Unusable(format!(
            "cell `{}` of another run, found as `{name}`",
            e.name
        )),
        Ok(e) => Found::Cell(e.payload, e.seconds),
    }
}

/// The `run.json` of a run directory's cells.
fn key_path(dir: &Path) -> PathBuf {
    dir.join("run.json")
}

/// The key recorded in `dir`'s `run.json`, if any.
pub fn recorded_key(dir: &Path) -> Result<Option<RunKey>> {
    let path = key_path(dir);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| BenchError::Stored {
                path: path.clone(),
                message: format!("not a run key ({e}); remove the directory or rerun with --fresh"),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(&path)(e)),
    }
}

/// The cell store of `dir` for a run with `key`: with `fresh` any earlier cells are
/// removed first; otherwise cells of an earlier run with the same key are kept (to
/// be resumed), and a directory holding another run's cells is refused, saying what
/// differs. A directory another run claimed but wrote no cell into (it stopped before
/// its first cell) holds nothing to mix: this run takes it over.
pub fn claim(dir: &Path, key: &RunKey, fresh: bool) -> Result<CellStore> {
    if fresh && dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io_err(dir))?;
    }
    if let Some(found) = recorded_key(dir)? {
        let differences = found.differences(key);
        if !differences.is_empty() && !CellStore::open(dir, owner(&found))?.names()?.is_empty() {
            return Err(BenchError::MixedCells {
                dir: dir.to_path_buf(),
                differences,
            });
        }
    }
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let path = key_path(dir);
    let text = serde_json::to_string_pretty(key).expect("plain JSON") + "\n";
    let tmp = dir.join(".run.json.tmp");
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, &path).map_err(io_err(&path))?;
    CellStore::open(dir, owner(key))
}

/// The owner string of a run's cells: everything that must match for a cell to be
/// used (not the git commit).
pub fn owner(key: &RunKey) -> String {
    format!("{}|{}|{}|{}", key.id, key.computation, key.scale, key.code)
}

/// The shared store of Monte-Carlo truths under `dir`: content-addressed (the file
/// name hashes what the truth depends on and the code version), so runs, shards and
/// YAML edits that leave a truth's inputs alone share it.
pub fn truths(dir: &Path) -> Result<CellStore> {
    CellStore::open(dir, code_version().to_string())
}

/// The file name of the truth of `identity` (its DGP, n, learner and settings) drawn
/// with `seed` by this code on a processor of this SIMD level.
pub fn truth_name(identity: &str, seed: u64) -> String {
    let h = Sha256::digest(format!(
        "{identity}|{seed}|{}|{}",
        code_version(),
        crate::workspace::simd_level()
    ));
    format!("truth-{:x}", h)[..22].to_string()
}

/// The file name of cell (v, r).
pub fn cell_name(v: usize, r: usize) -> String {
    format!("v{v:03}-r{r:06}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (PathBuf, CellStore) {
        let dir = std::env::temp_dir().join(format!(
            "xai-cells-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        let s = CellStore::open(&dir, "me".into()).unwrap();
        (dir, s)
    }

    #[test]
    fn a_cell_reads_back_bit_for_bit_nan_included() {
        let (dir, s) = store();
        let payload = vec![0.1 + 0.2, f64::NAN, -0.0, 1e-310, f64::INFINITY];
        s.write("c", 1.5, &payload).unwrap();
        let Found::Cell(back, seconds) = s.read::<Vec<f64>>("c").unwrap() else {
            panic!("not read back")
        };
        assert_eq!(seconds, 1.5);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&payload));
        assert!(matches!(
            s.read::<Vec<f64>>("other").unwrap(),
            Found::Missing
        ));
        assert_eq!(s.names().unwrap(), vec!["c".to_string()]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_cut_short_altered_or_foreign_cell_is_unusable() {
        let (dir, s) = store();
        s.write("c", 0.0, &vec![1.0f64; 50]).unwrap();
        let path = s.path("c");
        let whole = std::fs::read(&path).unwrap();
        for cut in [0, 5, 40, whole.len() - 1] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert!(
                matches!(s.read::<Vec<f64>>("c").unwrap(), Found::Unusable(_)),
                "cut at {cut}"
            );
        }
        let mut flipped = whole.clone();
        flipped[20] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert!(matches!(
            s.read::<Vec<f64>>("c").unwrap(),
            Found::Unusable(_)
        ));
        std::fs::write(&path, &whole).unwrap();
        let foreign = CellStore::open(&dir, "someone else".into()).unwrap();
        assert!(matches!(
            foreign.read::<Vec<f64>>("c").unwrap(),
            Found::Unusable(_)
        ));
        std::fs::copy(&path, s.path("d")).unwrap();
        assert!(matches!(
            s.read::<Vec<f64>>("d").unwrap(),
            Found::Unusable(_)
        ));
        assert!(matches!(s.read::<Vec<f64>>("c").unwrap(), Found::Cell(..)));
        std::fs::remove_dir_all(dir).unwrap();
    }

    fn key(seed: u64) -> RunKey {
        RunKey {
            id: "e".into(),
            computation: format!("computation of seed {seed}"),
            fields: serde_json::Map::from_iter([("seed".to_string(), seed.into())]),
            scale: "ci".into(),
            code: "code".into(),
            git_commit: None,
            shard: None,
            simd: "avx2".into(),
        }
    }

    #[test]
    fn a_claimed_directory_without_cells_is_taken_over_and_one_with_cells_refused() {
        let (dir, _) = store();
        claim(&dir, &key(1), false).unwrap();
        // The run of seed 1 stopped before its first cell: seed 2 takes the directory.
        let s = claim(&dir, &key(2), false).unwrap();
        assert_eq!(recorded_key(&dir).unwrap().unwrap(), key(2));
        s.write(&cell_name(0, 0), 0.0, &1.0f64).unwrap();
        match claim(&dir, &key(1), false) {
            Err(BenchError::MixedCells { differences, .. }) => {
                assert!(differences[0].contains("`seed`"), "{differences:?}")
            }
            other => panic!("a directory with another run's cell was claimed: {other:?}"),
        }
        // The same key resumes; --fresh starts over.
        claim(&dir, &key(2), false).unwrap();
        let s = claim(&dir, &key(1), true).unwrap();
        assert!(s.names().unwrap().is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn shards_deal_every_cell_to_exactly_one_shard() {
        let shards: Vec<Shard> = (1..=3)
            .map(|k| Shard::parse(&format!("{k}/3")).unwrap())
            .collect();
        for i in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.owns(i)).count(), 1);
        }
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
