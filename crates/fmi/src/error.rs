//! The error type of the `fmi` crate.
//!
//! One enum for everything: archive extraction, `modelDescription.xml`, loading the shared
//! library, and calls into an instance. Every variant names the file, the instance or the FMI
//! function involved, so a message is useful without its context. FMI status codes become
//! [`Error::Discard`] (the caller may retry with a smaller step or roll back) and
//! [`Error::CallFailed`] (Error, Fatal, Pending), kept apart so callers can match on them.

use std::path::PathBuf;

use crate::kinds::{Alias, FmiVersion, Interface, Interfaces, VarType};

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A failing FMI status other than Discard.
///
/// Spec: FMI 2.0.2 §2.1.3 (`fmi2Status`), FMI 1.0 CS §4 (`fmiStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureStatus {
    /// `fmi2Error`: the call failed; the instance may be restored from an FMU state.
    Error,
    /// `fmi2Fatal`: the instance (and possibly all instances of the FMU) is unusable.
    Fatal,
    /// `fmi2Pending`: an asynchronous `doStep` is still running (not supported here).
    Pending,
    /// A status code outside the standard's range.
    Unknown(i32),
}

impl std::fmt::Display for FailureStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureStatus::Error => f.write_str("Error"),
            FailureStatus::Fatal => f.write_str("Fatal"),
            FailureStatus::Pending => f.write_str("Pending"),
            FailureStatus::Unknown(code) => write!(f, "unknown status {code}"),
        }
    }
}

/// Everything that can go wrong when importing or calling an FMU.
///
/// Each variant names the file, instance or FMI function involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },

    // ----- archive -------------------------------------------------------------------------
    /// The `.fmu` file is not a readable zip archive (no central directory, bad signature).
    #[error("{}: not a valid FMU archive (zip): {source}", fmu.display())]
    Zip {
        /// The `.fmu` file.
        fmu: PathBuf,
        /// The zip library's error.
        source: zip::result::ZipError,
    },
    /// The `.fmu` file is empty (0 bytes).
    #[error("{}: the file is empty (0 bytes), expected an FMU archive (zip)", fmu.display())]
    EmptyArchive {
        /// The `.fmu` file.
        fmu: PathBuf,
    },
    /// An archive entry cannot be read or decompressed (corrupt header or data, wrong checksum).
    #[error("{}: archive entry '{entry}' is corrupt: {source}", fmu.display())]
    CorruptEntry {
        /// The `.fmu` file.
        fmu: PathBuf,
        /// The entry name as listed in the central directory (`#k` when even that is unreadable).
        entry: String,
        /// The zip library's error.
        source: zip::result::ZipError,
    },
    /// An archive entry would be written outside the target directory, or is a symbolic link.
    #[error("{}: refusing archive entry '{entry}': {reason}", fmu.display())]
    UnsafeArchiveEntry {
        /// The `.fmu` file.
        fmu: PathBuf,
        /// The entry name as stored in the archive.
        entry: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// The archive would extract to more than [`crate::archive::ExtractOptions::max_total_size`]
    /// bytes: the sizes its entries declare add up to more (nothing is extracted), or an entry
    /// inflated past the limit while it was extracted (nothing of the extraction is kept).
    #[error("{}: {}", fmu.display(), too_large(entry.as_deref(), *declared, *limit))]
    ArchiveTooLarge {
        /// The archive.
        fmu: PathBuf,
        /// The entry being extracted when the limit was passed; `None` when the declared sizes
        /// pass it, so that nothing was extracted.
        entry: Option<String>,
        /// The uncompressed sizes of all entries as the archive declares them, added up, bytes.
        declared: u64,
        /// The limit, bytes.
        limit: u64,
    },
    /// Two entries of the archive share bytes (their local headers or data overlap), or an
    /// entry reaches into the central directory. A valid zip archive never does this; it is
    /// how a zip bomb makes a small archive inflate to many times its size.
    ///
    /// Spec: PKWARE APPNOTE 6.3.10 §4.3.6 (each file: local header, data, then the next).
    #[error(
        "{}: archive entry '{first}' overlaps {}; the entries of a valid zip archive never \
         share bytes (this is how overlapping-entry zip bombs are built)",
        fmu.display(),
        second.as_ref().map_or("the central directory".to_owned(), |s| format!("archive entry '{s}'"))
    )]
    OverlappingEntries {
        /// The archive.
        fmu: PathBuf,
        /// The entry that starts first, as stored.
        first: String,
        /// The entry it overlaps, as stored; `None` for the central directory.
        second: Option<String>,
    },
    /// Two entries of the archive extract to the same path with different content (or one
    /// as a directory, one as a file): which one is meant is ambiguous. (Entries with the
    /// same content are extracted once, with a warning.)
    #[error(
        "{}: archive entry '{entry}' is listed twice (entries #{first} and #{second} of the \
         central directory) {reason}; which one is meant is ambiguous",
        fmu.display()
    )]
    DuplicateEntry {
        /// The archive.
        fmu: PathBuf,
        /// The path both entries extract to (`/` separators).
        entry: String,
        /// The 1-based position of the first entry in the central directory.
        first: usize,
        /// The 1-based position of the second entry.
        second: usize,
        /// How they differ, e.g. `with different content (1024 and 2048 bytes)`.
        reason: String,
    },

    // ----- modelDescription.xml -------------------------------------------------------------
    /// A `modelDescription.xml` larger than the limit on model descriptions
    /// ([`crate::model_description::MAX_DESCRIPTION_SIZE`], or a lower limit given to
    /// [`crate::archive::inspect`]): it is not read.
    #[error("{}: {}", path.display(), description_too_large(*size, *declared, *limit))]
    DescriptionTooLarge {
        /// The file, or `<fmu>/modelDescription.xml` for an archive entry.
        path: PathBuf,
        /// Its size, bytes; `None` when reading it passed the limit (a device, a file that
        /// grows, an archive entry that inflates past its declared size).
        size: Option<u64>,
        /// True when `size` is what an archive entry declares.
        declared: bool,
        /// The limit, bytes.
        limit: u64,
    },
    /// A `modelDescription.xml` that is not a regular file (a device, a pipe, a socket, a
    /// directory): it is not opened, since reading it could block or never end.
    #[error("{}: not a regular file ({kind}); a model description must be a file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is, e.g. `a character device`.
        kind: &'static str,
    },
    /// The XML is not well-formed, is not valid UTF-8 (or Latin-1), or does not fit the schema.
    #[error("{}: malformed XML{}: {message}", path.display(), byte_position(*position))]
    Xml {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// Byte offset of the error, when the parser reports one.
        position: Option<u64>,
        /// The parser's message.
        message: String,
    },
    /// The root element is not `fmiModelDescription`.
    #[error("{}: expected root element 'fmiModelDescription', found '{found}'", path.display())]
    WrongRootElement {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The name of the root element found.
        found: String,
    },
    /// `fmiVersion` is not 1.0, 2.0 or 3.0.
    #[error(
        "{}: fmiVersion '{version}' is not supported (supported: 1.0, 2.0 and 3.0 co-simulation)",
        path.display()
    )]
    UnsupportedVersion {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The `fmiVersion` attribute as written.
        version: String,
    },
    /// The FMU has no co-simulation interface.
    #[error("{}: {}", path.display(), no_co_simulation(*version, interfaces))]
    NoCoSimulation {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// FMI version of the file.
        version: FmiVersion,
        /// The interfaces it offers instead.
        interfaces: Interfaces,
    },
    /// The FMU does not offer the interface it is loaded for.
    ///
    /// Spec: FMI 2.0.2 §2.2.1 and FMI 3.0 §2.4.1 (the interface elements).
    #[error(
        "{}: no {interface} interface: the FMU offers {}",
        path.display(),
        interfaces.describe()
    )]
    InterfaceMissing {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The interface asked for.
        interface: Interface,
        /// The interfaces the FMU offers.
        interfaces: Interfaces,
    },
    /// The Model Exchange structure of a description is ambiguous (a derivative whose state
    /// does not exist, two derivatives of one state, an event indicator that names no
    /// variable, …), so the FMU cannot be run as Model Exchange.
    ///
    /// Spec: FMI 2.0.2 §2.2.8 (`Derivatives`), FMI 3.0 §2.4.8 (`ContinuousStateDerivative`,
    /// `EventIndicator`).
    #[error("{}: {element}: {message}", path.display())]
    ModelStructure {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The element, e.g. `ModelStructure/Derivatives/Unknown #2`.
        element: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// An FMI 1.0 FMU was loaded as Model Exchange, which mastersim does not run (FMI 2.0
    /// and 3.0 Model Exchange it does).
    #[error(
        "{}: FMI 1.0 Model Exchange is not supported: mastersim runs FMI 2.0 and 3.0 Model \
         Exchange FMUs and FMI 1.0 co-simulation FMUs",
        path.display()
    )]
    Fmi1ModelExchange {
        /// The `modelDescription.xml` file.
        path: PathBuf,
    },
    /// A required element is missing.
    #[error("{}: {parent}: missing element '{element}'", path.display())]
    MissingElement {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The element that should contain it, e.g. `fmiModelDescription`.
        parent: String,
        /// The missing element.
        element: &'static str,
    },
    /// A required attribute is missing.
    #[error("{}: {element}: missing attribute '{attribute}'", path.display())]
    MissingAttribute {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The element, e.g. `CoSimulation` or `ScalarVariable #3 'x'`.
        element: String,
        /// The missing attribute.
        attribute: &'static str,
    },
    /// An attribute has a value outside its allowed set or of the wrong type.
    #[error(
        "{}: {element}: invalid value '{value}' of attribute '{attribute}' (expected {expected})",
        path.display()
    )]
    InvalidAttribute {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The element, e.g. `CoSimulation` or `ScalarVariable #3 'x'`.
        element: String,
        /// The attribute.
        attribute: &'static str,
        /// The value as written.
        value: String,
        /// What was expected, e.g. `true or false`.
        expected: &'static str,
    },
    /// A `ScalarVariable` does not have exactly one type element.
    #[error(
        "{}: {element}: expected exactly one type element (Real, Integer, Boolean, String or \
         Enumeration), found {}",
        path.display(), list_or_none(found)
    )]
    TypeElement {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The variable, e.g. `ScalarVariable #3 'x'`.
        element: String,
        /// The type elements present (empty when there is none).
        found: Vec<&'static str>,
    },

    /// FMI 1.0: the only variables with the value reference of an alias have another type (an
    /// alias must have the base type of its base variable).
    #[error(
        "{}: {element} ({var_type:?}): alias=\"{}\" of value reference {value_reference}, but \
         {base} with this value reference is {base_type:?}; an alias needs a non-alias base \
         variable of the same type",
        path.display(), alias_keyword(*alias)
    )]
    AliasTypeMismatch {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The alias variable, e.g. `ScalarVariable #8 'steps'`.
        element: String,
        /// The alias kind declared.
        alias: Alias,
        /// Type of the alias variable (Enumeration counts as Integer).
        var_type: VarType,
        /// The shared value reference.
        value_reference: u32,
        /// The variable of another type with this value reference, e.g. `ScalarVariable #1 'x'`.
        base: String,
        /// Its type.
        base_type: VarType,
    },

    // ----- modelDescription.xml, FMI 3.0 ----------------------------------------------------
    /// FMI 3.0: a child of `ModelVariables` that is not a variable element.
    #[error(
        "{}: {element}: not an FMI 3.0 variable element (expected Float32, Float64, Int8, UInt8, \
         Int16, UInt16, Int32, UInt32, Int64, UInt64, Boolean, String, Binary, Enumeration or \
         Clock)",
        path.display()
    )]
    UnknownVariableElement {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The element, e.g. `ModelVariables/Real[1]`.
        element: String,
    },
    /// FMI 3.0: two variables have the same value reference (value references are unique in
    /// the whole FMU; all elements of an array share their array's).
    ///
    /// Spec: FMI 3.0 §2.4.7.4 (`valueReference`).
    #[error(
        "{}: {element}: valueReference {value_reference} already used by {first}",
        path.display()
    )]
    DuplicateValueReference {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The later variable, e.g. `ModelVariables/Float64[3] 'x'`.
        element: String,
        /// The shared value reference.
        value_reference: u32,
        /// The earlier variable, e.g. `ModelVariables/Int32[1] 'n'`.
        first: String,
    },
    /// FMI 3.0: an array `Dimension` refers to a value reference that no variable has.
    ///
    /// Spec: FMI 3.0 §2.4.7.6 (`Dimension`).
    #[error(
        "{}: {element}: valueReference {value_reference} names no variable, so the size of \
         the dimension is unknown",
        path.display()
    )]
    DimensionReference {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The dimension, e.g. `ModelVariables/Float64[3] 'x'/Dimension[1]`.
        element: String,
        /// The value reference as given.
        value_reference: u32,
    },
    /// FMI 3.0: an array `Dimension` refers to a variable that cannot give its size (not of an
    /// integer type, an array itself, or without a start value).
    ///
    /// Spec: FMI 3.0 §2.4.7.6 (`Dimension`: the size is the start value of a structural
    /// parameter or constant of an integer type).
    #[error(
        "{}: {element}: valueReference {value_reference} names {target}, which {problem}; the \
         size of a dimension is the start value of a scalar integer structuralParameter or \
         constant",
        path.display()
    )]
    DimensionTarget {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The dimension, e.g. `ModelVariables/Float64[3] 'x'/Dimension[1]`.
        element: String,
        /// The value reference as given.
        value_reference: u32,
        /// The variable it names, e.g. `ModelVariables/Float64[1] 'n'`.
        target: String,
        /// Why that variable cannot size the dimension, e.g. `is not of an integer type`.
        problem: &'static str,
    },
    /// FMI 3.0: the `clocks` attribute of a variable lists a value reference that names no
    /// variable, or a variable that is not a `Clock`.
    ///
    /// Spec: FMI 3.0 §2.4.7.4 (`clocks`: a list of value references of Clock variables).
    #[error(
        "{}: {element}: attribute 'clocks' lists valueReference {value_reference}, which {}; \
         it must list Clock variables",
        path.display(),
        target.as_ref().map_or("names no variable".to_owned(), |t| format!("names {t}, not a Clock"))
    )]
    ClockReference {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The clocked variable, e.g. `ModelVariables/Float64[3] 'x'`.
        element: String,
        /// The value reference as listed.
        value_reference: u32,
        /// The variable it names, e.g. `ModelVariables/Int8[1] 'n'`; `None` when it names none.
        target: Option<String>,
    },
    /// FMI 3.0: the size of an array `Dimension` is not a non-negative integer.
    ///
    /// Spec: FMI 3.0 §2.4.7.6 (`Dimension`).
    #[error(
        "{}: {element}: size '{value}'{} is not a non-negative integer",
        path.display(),
        from.as_ref().map(|f| format!(" (the start value of {f})")).unwrap_or_default()
    )]
    InvalidDimensionSize {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The dimension, e.g. `ModelVariables/Float64[3] 'x'/Dimension[1]`.
        element: String,
        /// The size as written.
        value: String,
        /// The variable whose start value it is, when the dimension refers to one; `None` for
        /// the dimension's own `start` attribute.
        from: Option<String>,
    },
    /// FMI 3.0: the arrays would expand into more scalars than mastersim handles (each array
    /// element is one scalar, with its own name and attributes).
    #[error(
        "{}: {element} (dimensions {dimensions:?}): too large; mastersim handles at most \
         {limit} (each array element is one scalar)",
        path.display()
    )]
    ArrayTooLarge {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The variable or alias, e.g. `ModelVariables/Float64[3] 'x'`.
        element: String,
        /// Its dimensions (empty for a scalar).
        dimensions: Vec<usize>,
        /// The limit reached: `1000000 scalars per FMU`, `32 dimensions per array` or
        /// `1 GiB of scalars per FMU` (estimated memory).
        limit: &'static str,
    },
    /// FMI 3.0: the start values of a variable are neither one per element nor a single value.
    ///
    /// Spec: FMI 3.0 §2.4.7.6 (start values of arrays, in row-major order).
    #[error(
        "{}: {element}: {found} start values for {expected} element{} (give one per element, \
         or one for all)",
        path.display(),
        if *expected == 1 { "" } else { "s" }
    )]
    StartCount {
        /// The `modelDescription.xml` file.
        path: PathBuf,
        /// The variable, e.g. `ModelVariables/Float64[3] 'x'`.
        element: String,
        /// Number of elements of the variable (1 for a scalar).
        expected: usize,
        /// Number of start values given.
        found: usize,
    },

    // ----- loading ------------------------------------------------------------------------
    /// `<dir>/modelDescription.xml` does not exist.
    #[error("{}: missing modelDescription.xml (is this an extracted FMU?)", path.display())]
    MissingModelDescription {
        /// The path that was looked for.
        path: PathBuf,
    },
    /// The shared library for this platform does not exist.
    #[error("{}: shared library not found; {}", library.display(), platform_hint(platforms))]
    MissingLibrary {
        /// The path that was looked for (`<dir>/binaries/linux64/<modelIdentifier>.so`).
        library: PathBuf,
        /// Platform folders found under `binaries/`; `None` when there is no `binaries` folder.
        platforms: Option<Vec<String>>,
    },
    /// The shared library is an ELF file built for another architecture (its header's class
    /// or machine differs from this program's).
    #[error(
        "{}: the shared library is built for {found}, but this machine runs {host}; the FMU \
         needs a binary built for {host} in that folder",
        library.display()
    )]
    WrongArchitecture {
        /// The shared library.
        library: PathBuf,
        /// The architecture its ELF header names (`AArch64 (64-bit ARM)`).
        found: String,
        /// The architecture of this machine (`x86-64`).
        host: String,
    },
    /// The shared library resolves (through symbolic links) to a file outside the FMU
    /// directory; it is not loaded.
    #[error("{}: the shared library resolves to '{}', outside the FMU directory '{}'; refusing to load it", library.display(), resolved.display(), directory.display())]
    LibraryOutsideFmu {
        /// The path inside the FMU (`<dir>/binaries/linux64/<modelIdentifier>.so`).
        library: PathBuf,
        /// Where it leads.
        resolved: PathBuf,
        /// The FMU directory.
        directory: PathBuf,
    },
    /// `dlopen` failed.
    #[error(
        "{}: cannot load shared library: {message} (maybe missing dependencies, check with ldd)",
        library.display()
    )]
    LoadLibrary {
        /// The shared library.
        library: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A required FMI function is not exported by the shared library.
    #[error("{}: missing required function '{symbol}'", library.display())]
    MissingSymbol {
        /// The shared library.
        library: PathBuf,
        /// The symbol name (with the `<modelIdentifier>_` prefix for FMI 1.0).
        symbol: String,
    },

    // ----- instances ----------------------------------------------------------------------
    /// `fmi2Instantiate` / `fmiInstantiateSlave` returned NULL.
    #[error("instance '{instance}' of FMU {}: instantiation failed (the FMU returned NULL)", fmu.display())]
    Instantiate {
        /// The instance name.
        instance: String,
        /// The FMU directory.
        fmu: PathBuf,
    },
    /// A second instance of an FMU that declares `canBeInstantiatedOnlyOncePerProcess`.
    #[error(
        "instance '{instance}': FMU {} may only be instantiated once per process and already has \
         an instance",
        fmu.display()
    )]
    InstantiatedTwice {
        /// The instance name that was refused.
        instance: String,
        /// The FMU directory.
        fmu: PathBuf,
    },
    /// The FMU returned `Discard`: the call did not complete, but the instance is still usable
    /// (a master typically retries with a smaller step or rolls back).
    #[error("instance '{instance}': {function} returned Discard")]
    Discard {
        /// The instance name.
        instance: String,
        /// The FMI function, e.g. `fmi2DoStep`.
        function: &'static str,
    },
    /// The FMU returned `Error`, `Fatal`, `Pending` or an unknown status.
    #[error("instance '{instance}': {function} returned {status}")]
    CallFailed {
        /// The instance name.
        instance: String,
        /// The FMI function, e.g. `fmi2DoStep`.
        function: &'static str,
        /// The status returned.
        status: FailureStatus,
    },
    /// `values.len() != vrs.len()` (or a similar pair of slices) at a batched call.
    #[error("instance '{instance}': {function}: {expected} value references but {found} values")]
    LengthMismatch {
        /// The instance name.
        instance: String,
        /// The FMI function.
        function: &'static str,
        /// Number of value references.
        expected: usize,
        /// Number of values given.
        found: usize,
    },
    /// A string passed to the FMU contains a NUL byte.
    #[error("instance '{instance}': {function}: value #{index} contains a NUL byte")]
    InteriorNul {
        /// The instance name.
        instance: String,
        /// The FMI function.
        function: &'static str,
        /// Position of the offending value in the slice.
        index: usize,
    },
    /// The FMU returned a NULL pointer where a string or an FMU state was expected.
    #[error("instance '{instance}': {function} returned a NULL pointer")]
    NullPointer {
        /// The instance name.
        instance: String,
        /// The FMI function.
        function: &'static str,
    },
    /// The FMU does not provide this optional function (capability not declared, or the
    /// symbol is missing, or the FMI version has no such function).
    #[error("instance '{instance}': {function} is not supported by this FMU")]
    Unsupported {
        /// The instance name.
        instance: String,
        /// The FMI function.
        function: &'static str,
    },
    /// An [`crate::FmuStateId`] that this instance does not own, or that was already freed.
    #[error("instance '{instance}': unknown or freed FMU state #{id}")]
    UnknownFmuState {
        /// The instance name.
        instance: String,
        /// The state handle's number.
        id: usize,
    },
    /// The call is not allowed in the instance's current state (for example after `Fatal`, or
    /// a second `terminate`); it was not passed to the FMU.
    #[error("instance '{instance}': {function} not called: {reason}")]
    InvalidCall {
        /// The instance name.
        instance: String,
        /// The FMI function that was refused.
        function: &'static str,
        /// Why.
        reason: &'static str,
    },

    // ----- isolation (helper processes) ---------------------------------------------------
    /// The FMU cannot run in a helper process (`Fmu::load_isolated`): isolation covers FMI
    /// 2.0 and 3.0 co-simulation only.
    #[error("{}: cannot run the FMU in a helper process: {reason}", fmu.display())]
    IsolationRefused {
        /// The FMU directory.
        fmu: PathBuf,
        /// Why, e.g. `Model Exchange FMUs run in the master's process`.
        reason: &'static str,
    },
    /// The helper process of an isolated FMU could not run here, did not start, or could not
    /// load the FMU's library.
    #[error("{}: {source}", library.display())]
    IsolatedLoad {
        /// The FMU's shared library (a path of this machine).
        library: PathBuf,
        /// What the transport reported (it says what to install when the platform cannot run).
        source: isolation::Error,
    },
    /// A call of an isolated instance failed outside the FMU's own statuses: its helper
    /// process crashed (signal or exit code), did not return within the call timeout, or
    /// broke the protocol. The instance and every other instance of its FMU are then Fatal.
    #[error("instance '{instance}': {function} failed: {source}")]
    Isolated {
        /// The instance name.
        instance: String,
        /// The FMI function the master called, e.g. `fmi2DoStep`.
        function: &'static str,
        /// The transport's error: names the function in progress and the signal or exit code.
        source: isolation::Error,
    },
}

impl Error {
    /// The error of FMI function `function` of instance `instance`, which answered the failing
    /// `status` (Error, Fatal, Pending or unknown): [`Error::Isolated`] when the helper process
    /// of an isolated instance failed (`helper`), else [`Error::CallFailed`].
    pub(crate) fn failed_call(
        instance: &str,
        function: &'static str,
        status: FailureStatus,
        helper: Option<isolation::Error>,
    ) -> Error {
        let instance = instance.to_owned();
        match helper {
            Some(source) => Error::Isolated {
                instance,
                function,
                source,
            },
            None => Error::CallFailed {
                instance,
                function,
                status,
            },
        }
    }
}

/// The FMI 1.0 keyword of an alias kind (`noAlias`, `alias`, `negatedAlias`).
pub(crate) fn alias_keyword(alias: Alias) -> &'static str {
    match alias {
        Alias::NoAlias => "noAlias",
        Alias::Alias => "alias",
        Alias::NegatedAlias => "negatedAlias",
    }
}

fn byte_position(position: Option<u64>) -> String {
    position
        .map(|p| format!(" at byte {p}"))
        .unwrap_or_default()
}

fn list_or_none(found: &[&str]) -> String {
    if found.is_empty() {
        "none".to_owned()
    } else {
        found.join(", ")
    }
}

/// The message of [`Error::NoCoSimulation`]: which element is missing and what the FMU offers
/// instead, by name.
fn no_co_simulation(version: FmiVersion, interfaces: &Interfaces) -> String {
    match version {
        FmiVersion::V1 => "FMI 1.0 Model Exchange FMU (no 'Implementation' element); mastersim \
                           runs Co-Simulation FMUs"
            .to_owned(),
        FmiVersion::V2 | FmiVersion::V3 if interfaces.names().is_empty() => {
            "no 'CoSimulation' element, and no other interface either (no 'ModelExchange' or \
             'ScheduledExecution' element)"
                .to_owned()
        }
        FmiVersion::V2 | FmiVersion::V3 => format!(
            "no 'CoSimulation' element: the FMU offers only {}; mastersim runs Co-Simulation \
             FMUs",
            interfaces.describe()
        ),
    }
}

fn platform_hint(platforms: &Option<Vec<String>>) -> String {
    match platforms {
        None => "the FMU has no 'binaries' folder".to_owned(),
        Some(p) if p.is_empty() => "the FMU's 'binaries' folder is empty".to_owned(),
        Some(p) => format!("the FMU only has binaries for: {}", p.join(", ")),
    }
}

/// `n` bytes in words: `100 bytes`, `20000 bytes (19.5 KiB)`, `1048576 bytes (1 MiB)`.
fn bytes(n: u64) -> String {
    let scaled = |unit: u64, name: &str| {
        let value = n as f64 / unit as f64;
        if n.is_multiple_of(unit) {
            format!("{n} bytes ({value:.0} {name})")
        } else {
            format!("{n} bytes ({value:.1} {name})")
        }
    };
    match n {
        0..1024 => format!("{n} bytes"),
        1024..1_048_576 => scaled(1024, "KiB"),
        1_048_576..1_073_741_824 => scaled(1 << 20, "MiB"),
        _ => scaled(1 << 30, "GiB"),
    }
}

fn too_large(entry: Option<&str>, declared: u64, limit: u64) -> String {
    let limit = format!(
        "the limit of {} on what one archive may extract to",
        bytes(limit)
    );
    match entry {
        None => format!(
            "its entries declare {} of content in all, more than {limit}; nothing was \
             extracted",
            bytes(declared)
        ),
        Some(entry) => format!(
            "entry '{entry}' inflated past {limit} (the entries declare {} in all); the \
             extraction stopped there and nothing of it was kept",
            bytes(declared)
        ),
    }
}

fn description_too_large(size: Option<u64>, declared: bool, limit: u64) -> String {
    let limit = format!(
        "the limit of {} on a model description, which real ones stay far below",
        bytes(limit)
    );
    match (size, declared) {
        (Some(n), true) => format!(
            "the archive entry declares {}, more than {limit}; it is not read",
            bytes(n)
        ),
        (Some(n), false) => format!("{}, more than {limit}; it is not read", bytes(n)),
        (None, _) => format!("reading it passed {limit}; it is not read further"),
    }
}
