//! FMUs loaded once per process: an FMU archive is extracted into a temporary folder and its
//! library opened (`dlopen`) the first time a function of the package needs it; later calls
//! with the same file reuse both, as long as the file's size and modification time are
//! unchanged. A changed file is loaded again (the old one is freed when no run holds it).
//!
//! This is what makes 1,000 runs of one FMU cheap: no run extracts, writes or opens a library.
//! FMPy reaches the same with its `model_description=`, `unzipdir=`-style reuse by hand.
//!
//! Spec: FMI 2.0.2 §2.3, FMI 3.0 §2.5 (the FMU archive: `modelDescription.xml`,
//! `binaries/<platform>/`, `resources/`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use fmi::Fmu;

/// An FMU ready to instantiate: its loaded library and description, and the temporary folder
/// it was extracted to (removed when the last holder drops it).
#[derive(Debug)]
pub struct LoadedFmu {
    /// The loaded FMU (description and library).
    pub fmu: Arc<Fmu>,
    /// The temporary extraction folder of an archive; `None` for an already extracted folder.
    _extracted: Option<tempfile::TempDir>,
}

/// What identifies one version of a file: its canonical path, size (bytes) and modification
/// time.
type Key = (PathBuf, u64, Option<SystemTime>);

/// The loaded FMUs by canonical path, with the key of the file version loaded.
type Cache = HashMap<PathBuf, (Key, Arc<LoadedFmu>)>;

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// Why an FMU could not be loaded: a message naming the file.
#[derive(Debug)]
pub struct LoadError(pub String);

/// The FMU at `path` (an `.fmu` archive, or a folder holding an extracted FMU with
/// `modelDescription.xml`), loaded now or taken from the cache.
///
/// # Errors
/// [`LoadError`] naming `path`: it does not exist, cannot be extracted (a corrupt or unsafe
/// archive), has no co-simulation interface, or its library cannot be opened.
pub fn load(path: &Path) -> Result<Arc<LoadedFmu>, LoadError> {
    let canonical = path.canonicalize().map_err(|e| {
        LoadError(format!(
            "cannot read the FMU '{}': {e} (expected an .fmu archive or a folder with \
             modelDescription.xml)",
            path.display()
        ))
    })?;
    let key = key_of(&canonical)?;
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let map = cache.get_or_insert_with(HashMap::new);
    if let Some((cached, loaded)) = map.get(&canonical)
        && *cached == key
    {
        return Ok(loaded.clone());
    }
    let loaded = Arc::new(load_now(&canonical)?);
    map.insert(canonical, (key, loaded.clone()));
    Ok(loaded)
}

/// Forgets every cached FMU: each is freed (library closed, temporary folder removed) once no
/// run holds it any more. Called when the interpreter exits.
pub fn clear() {
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    *cache = None;
}

fn key_of(canonical: &Path) -> Result<Key, LoadError> {
    let meta = std::fs::metadata(canonical)
        .map_err(|e| LoadError(format!("cannot read '{}': {e}", canonical.display())))?;
    let description = canonical.join("modelDescription.xml");
    // A folder changes when its description does.
    let modified = if meta.is_dir() {
        std::fs::metadata(&description)
            .and_then(|m| m.modified())
            .ok()
    } else {
        meta.modified().ok()
    };
    Ok((canonical.to_path_buf(), meta.len(), modified))
}

fn load_now(canonical: &Path) -> Result<LoadedFmu, LoadError> {
    let failed = |e: fmi::Error| LoadError(format!("{e}"));
    if canonical.is_dir() {
        let fmu = Fmu::load(canonical).map_err(failed)?;
        return Ok(LoadedFmu {
            fmu,
            _extracted: None,
        });
    }
    let dir = tempfile::Builder::new()
        .prefix("mastersim-fmu-")
        .tempdir()
        .map_err(|e| LoadError(format!("cannot create a temporary folder: {e}")))?;
    fmi::archive::extract(
        canonical,
        dir.path(),
        &fmi::archive::ExtractOptions::default(),
    )
    .map_err(failed)?;
    let fmu = Fmu::load(dir.path()).map_err(failed)?;
    Ok(LoadedFmu {
        fmu,
        _extracted: Some(dir),
    })
}
