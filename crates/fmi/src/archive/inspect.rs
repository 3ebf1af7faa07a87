//! Reading what an FMU archive holds without extracting it: `mastersim info` and the SSP
//! reader use it.
//!
//! Spec: FMI 2.0.2 §2.3 (structure of the FMU zip file), FMI 1.0 §2.1.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::elf::ElfTarget;
use crate::model_description::MAX_DESCRIPTION_SIZE;
use crate::{Error, ModelDescription, Result};

use super::entries::Listing;
use super::{ExtractOptions, MODEL_DESCRIPTION};

/// What an FMU archive holds, read by [`inspect`] without extracting it.
///
/// Spec: FMI 2.0.2 §2.3 (structure of the FMU zip file), FMI 1.0 §2.1.
#[derive(Debug, Clone, PartialEq)]
pub struct FmuContents {
    /// The parsed `modelDescription.xml` (capabilities as declared: whether the shared
    /// library exports their functions is only known after loading it, see [`crate::Fmu`]).
    pub description: ModelDescription,
    /// The root element's `generationDateAndTime` as written (ISO 8601, e.g.
    /// `2024-05-02T10:11:12Z`); `None` when absent.
    pub generation_date_and_time: Option<String>,
    /// The root element's `version` (the model's version, not the FMI version) as written;
    /// `None` when absent.
    pub model_version: Option<String>,
    /// Platform folders under `binaries/` (e.g. `linux64`, `win64`, `x86_64-linux`), sorted
    /// and each once; a folder counts when the archive lists it or a file inside it. Empty
    /// when the FMU has no binaries.
    pub platforms: Vec<String>,
    /// Files under `sources/` (archive paths with `/` separators, in archive order); empty
    /// when the FMU comes without sources.
    pub source_files: Vec<String>,
    /// The shared library this machine would load, when the archive holds it:
    /// `binaries/<platform>/<modelIdentifier>.so` ([`crate::Fmu::platform_folder`]).
    pub library: Option<LibraryEntry>,
}

/// The shared library of this machine's platform in an FMU archive, as [`inspect`] finds it
/// (only its first bytes are decompressed).
///
/// Spec: FMI 2.0.2 §2.3 (`binaries/<platform>/<modelIdentifier>.so`), FMI 3.0 FMU
/// distribution (platform tuples); System V ABI (ELF header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryEntry {
    /// The archive path (`binaries/linux64/Prey.so`).
    pub path: String,
    /// The architecture its ELF header names when it is not this machine's (`AArch64 (64-bit
    /// ARM)`): loading it would be refused. `None` for a library of this machine, and for a
    /// file that is no ELF file (which `dlopen` would refuse with its own message).
    pub foreign_architecture: Option<String>,
}

/// Reads `modelDescription.xml` and the list of entries straight from the archive `fmu`:
/// nothing is extracted to disk and no shared library is loaded.
///
/// The archive passes the checks of extraction that need no decompression (no symbolic
/// links, no paths that leave the FMU, no overlapping entries, no path listed twice with
/// different content; a path listed twice with the same content gives one warning). Entry
/// names are read as extraction writes them (`\` is a separator, `.` dropped, `..`
/// resolved). Only `modelDescription.xml` is decompressed, and at most
/// `options.max_total_size` or [`MAX_DESCRIPTION_SIZE`] bytes of it, whichever is less: a
/// larger declared size is refused before anything is read. The rest of the archive is
/// known from its central directory alone. Errors about the model description name it as
/// `<fmu>/modelDescription.xml`.
///
/// # Errors
/// - [`Error::Io`]: `fmu` cannot be opened or is a directory, or the archive has no
///   `modelDescription.xml` at its root (kind [`io::ErrorKind::NotFound`]);
/// - [`Error::EmptyArchive`]: `fmu` has 0 bytes;
/// - [`Error::Zip`]: `fmu` is not a valid zip archive;
/// - [`Error::CorruptEntry`]: `modelDescription.xml` cannot be decompressed (bad checksum, bad
///   deflate stream), or a local header cannot be read;
/// - [`Error::UnsafeArchiveEntry`], [`Error::OverlappingEntries`], [`Error::DuplicateEntry`]:
///   as for extraction;
/// - [`Error::DescriptionTooLarge`]: `modelDescription.xml` declares or inflates to more
///   than the limit;
/// - the decoding and parse errors of [`ModelDescription::from_file`].
///
/// Spec: FMI 2.0.2 §2.3 (FMU layout: `modelDescription.xml`, `binaries/<platform>/`,
/// `sources/`), §2.2.1 (`generationDateAndTime`, `version`); FMI 1.0 §2.1, §2.2.
pub fn inspect(fmu: &Path, options: &ExtractOptions) -> Result<FmuContents> {
    read(fmu, options, ModelDescription::from_bytes)
}

/// As [`inspect`], but to describe the FMU rather than to run it (`mastersim info`): an FMU
/// without a co-simulation interface is read too, through
/// [`ModelDescription::from_bytes_any_interface`] (its [`ModelDescription::interfaces`] say
/// what it offers).
///
/// # Errors
/// As [`inspect`], except [`Error::NoCoSimulation`] for an FMU that offers another interface.
///
/// Spec: as [`inspect`]; FMI 3.0 §2.4.1 and FMI 2.0.2 §2.2.1 (the interface elements).
pub fn describe(fmu: &Path, options: &ExtractOptions) -> Result<FmuContents> {
    read(fmu, options, ModelDescription::from_bytes_any_interface)
}

/// A reader of `modelDescription.xml` (its bytes, its path for messages): the description
/// and the XML text.
type Parse = fn(Vec<u8>, &Path) -> Result<(ModelDescription, String)>;

/// [`inspect`] and [`describe`], reading the description with `parse`.
fn read(fmu: &Path, options: &ExtractOptions, parse: Parse) -> Result<FmuContents> {
    let io_error = |source| Error::Io {
        path: fmu.to_owned(),
        source,
    };
    let file = File::open(fmu).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.is_dir() {
        return Err(io_error(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, expected an FMU archive (zip)",
        )));
    }
    if metadata.len() == 0 {
        return Err(Error::EmptyArchive {
            fmu: fmu.to_owned(),
        });
    }
    let mut listing = Listing::read(fmu, io::BufReader::new(file))?;
    listing.check_overlaps(fmu)?;
    let mut platforms = std::collections::BTreeSet::new();
    let mut source_files = Vec::new();
    for entry in listing.entries.iter().filter(|e| e.same_as.is_none()) {
        let parts: Vec<String> = entry
            .path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        match parts.as_slice() {
            [binaries, platform, rest @ ..]
                if binaries == "binaries" && (entry.is_dir || !rest.is_empty()) =>
            {
                platforms.insert(platform.clone());
            }
            [sources, _, ..] if sources == "sources" && !entry.is_dir => {
                source_files.push(parts.join("/"));
            }
            _ => {}
        }
    }
    let Some(description) = listing.description() else {
        return Err(io_error(io::Error::new(
            io::ErrorKind::NotFound,
            "the archive has no modelDescription.xml at its root; is this an FMU?",
        )));
    };
    let index = description.index;
    let limit = options.max_total_size.min(MAX_DESCRIPTION_SIZE);
    listing.check_description_size(fmu, limit)?;
    let path = fmu.join(MODEL_DESCRIPTION);
    let corrupt = |source| Error::CorruptEntry {
        fmu: fmu.to_owned(),
        entry: MODEL_DESCRIPTION.to_owned(),
        source,
    };
    let mut entry = listing.archive.by_index(index).map_err(corrupt)?;
    let mut bytes = Vec::new();
    (&mut entry)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| corrupt(e.into()))?;
    if bytes.len() as u64 > limit {
        return Err(Error::DescriptionTooLarge {
            path,
            size: None,
            declared: false,
            limit,
        });
    }
    drop(entry);
    let (description, text) = parse(bytes, &path)?;
    listing.warn_repeated(fmu);
    let library = library_entry(&mut listing, &description);
    let root_attribute = |name: &str| root_attribute(&text, name);
    Ok(FmuContents {
        description,
        generation_date_and_time: root_attribute("generationDateAndTime"),
        model_version: root_attribute("version"),
        platforms: platforms.into_iter().collect(),
        source_files,
        library,
    })
}

/// The library of this machine's platform in `listing`, with the architecture of its ELF
/// header when that is another one; `None` when the archive does not hold it. A header that
/// cannot be read is no ELF file here (loading would report it).
fn library_entry<R: Read + io::Seek>(
    listing: &mut Listing<R>,
    description: &ModelDescription,
) -> Option<LibraryEntry> {
    let path = format!(
        "binaries/{}/{}.so",
        crate::Fmu::platform_folder(description.fmi_version),
        description.model_identifier
    );
    let index = listing
        .entries
        .iter()
        .find(|e| !e.is_dir && e.same_as.is_none() && e.path == Path::new(&path))?
        .index;
    let mut header = [0u8; 20];
    let read = listing
        .archive
        .by_index(index)
        .ok()
        .and_then(|mut entry| entry.read_exact(&mut header).ok());
    let target = read.and_then(|()| ElfTarget::from_header(&header));
    let foreign_architecture = match (target, ElfTarget::host()) {
        (Some(target), Some(host)) if target != host => Some(target.describe()),
        _ => None,
    };
    Some(LibraryEntry {
        path,
        foreign_architecture,
    })
}

/// The attribute `name` of the root element of the well-formed document `xml`, unescaped.
fn root_attribute(xml: &str, name: &str) -> Option<String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) => {
                let attribute = e.try_get_attribute(name).ok()??;
                return attribute
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(std::borrow::Cow::into_owned);
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}
