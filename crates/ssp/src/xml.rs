//! Reading an SSP XML file through the element tree of the `fmi` crate: the helpers every
//! reader of this crate uses to name the element and line of a problem.
//!
//! Elements are matched by their local name (namespace prefixes are not checked: files in the
//! wild declare them differently, and some use a prefix they never declare).

use std::path::{Path, PathBuf};

use fmi::xml_tree::{Node, Tree};

use crate::error::{ErrorKind, Result, SspError};

/// Largest SSP XML file read, bytes: a limit against files that exhaust memory.
pub(crate) const MAX_FILE_SIZE: u64 = 64 << 20;

/// The SSP release a file follows, from the `version` attribute of its root element.
///
/// SSP 2.0 keeps the namespaces of 1.0; what 2.0 adds (types for FMI 3.0 variables, array
/// dimensions, more connector kinds, …) is read in files of either version.
///
/// Spec: SSP 2.0 §2.2 (versioning: `major.minor`), §5.1, §6.1, §7.1, §8.1 (`version` is 1.0
/// or 2.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Version {
    /// SSP 1.0.
    V1,
    /// SSP 2.0.
    V2,
}

/// One parsed XML file.
#[derive(Debug)]
pub(crate) struct Doc {
    /// The file, for messages.
    pub path: PathBuf,
    /// Its element tree.
    pub tree: Tree,
}

impl Doc {
    /// Reads and parses `path`.
    ///
    /// # Errors
    /// [`ErrorKind::Io`] when it cannot be read; [`ErrorKind::Invalid`] when it is larger than
    /// [`MAX_FILE_SIZE`], not UTF-8, or not well-formed XML (with the line).
    pub fn read(path: &Path) -> Result<Doc> {
        let bytes = output::input::read(path, MAX_FILE_SIZE).map_err(|e| {
            let kind = match e {
                output::input::InputError::Io(_) => ErrorKind::Io,
                _ => ErrorKind::Invalid,
            };
            SspError::file(kind, path, format!("cannot read it: {e}"))
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = line_of(e.as_bytes(), e.utf8_error().valid_up_to());
            SspError {
                line: Some(line),
                ..SspError::file(ErrorKind::Invalid, path, "expected UTF-8 text")
            }
        })?;
        Doc::parse(&text, path)
    }

    /// Parses `text` as the content of `path`.
    ///
    /// # Errors
    /// [`ErrorKind::Invalid`] naming the line when `text` is not well-formed XML.
    pub fn parse(text: &str, path: &Path) -> Result<Doc> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let tree = Tree::parse(text, path).map_err(|e| match e {
            fmi::Error::Xml {
                position, message, ..
            } => SspError {
                line: position.map(|p| line_of(text.as_bytes(), p as usize)),
                ..SspError::file(
                    ErrorKind::Invalid,
                    path,
                    format!("malformed XML: {message}"),
                )
            },
            other => SspError::file(ErrorKind::Invalid, path, other.to_string()),
        })?;
        Ok(Doc {
            path: path.to_path_buf(),
            tree,
        })
    }

    /// The root element, which must be `expected` (local name).
    ///
    /// # Errors
    /// [`ErrorKind::Invalid`] naming the element found.
    pub fn root(&self, expected: &str) -> Result<&Node> {
        let root = self.tree.root();
        if root.local_name() != expected {
            return Err(self.error(
                root,
                format!("the root element is '{}', expected '{expected}'", root.name),
            ));
        }
        Ok(root)
    }

    /// The SSP release of this file: the `version` attribute of `root`. A later minor release
    /// of 1 or 2 is read as 1.0 or 2.0 with a warning (minor releases add only content that
    /// may be ignored); a missing attribute is an error when `required`, else read as 1.0 with
    /// a warning (`.ssv`, `.ssm` and `.ssb` files written without it).
    ///
    /// # Errors
    /// [`ErrorKind::Unsupported`] for other major versions; [`ErrorKind::Invalid`] for a
    /// missing attribute when `required`.
    pub fn version(&self, root: &Node, required: bool) -> Result<Version> {
        let warn = |read_as: &str, why: &str| {
            log::warn!(
                "{}:{}: {}: {why}; read as SSP {read_as}",
                self.path.display(),
                root.line,
                root.local_name()
            );
        };
        match root.get("version").map(str::trim) {
            Some("1.0") => Ok(Version::V1),
            Some("2.0") => Ok(Version::V2),
            Some(v) if v.starts_with("1.") => {
                warn("1.0", &format!("version=\"{v}\""));
                Ok(Version::V1)
            }
            Some(v) if v.starts_with("2.") => {
                warn("2.0", &format!("version=\"{v}\""));
                Ok(Version::V2)
            }
            Some(v) => Err(self
                .error(
                    root,
                    format!("version=\"{v}\": only SSP 1.0 and 2.0 are supported"),
                )
                .unsupported()),
            None if required => Err(self.error(root, "the attribute 'version' is missing")),
            None => {
                warn("1.0", "the attribute 'version' is missing");
                Ok(Version::V1)
            }
        }
    }

    /// The children of `node`, in document order.
    pub fn children<'a>(&'a self, node: &'a Node) -> impl Iterator<Item = &'a Node> + 'a {
        self.tree.children(node)
    }

    /// The children of `node` with local name `name`.
    pub fn all<'a>(&'a self, node: &'a Node, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children(node).filter(move |c| c.local_name() == name)
    }

    /// The first child of `node` with local name `name`.
    pub fn first<'a>(&'a self, node: &'a Node, name: &str) -> Option<&'a Node> {
        self.children(node).find(|c| c.local_name() == name)
    }

    /// An [`ErrorKind::Invalid`] error at `node`.
    pub fn error(&self, node: &Node, message: impl Into<String>) -> SspError {
        SspError::at(&self.path, node.line, describe(node), message)
    }

    /// The attribute `name` of `node`.
    ///
    /// # Errors
    /// When it is missing.
    pub fn required<'a>(&self, node: &'a Node, name: &str) -> Result<&'a str> {
        node.get(name)
            .ok_or_else(|| self.error(node, format!("the attribute '{name}' is missing")))
    }

    /// The attribute `name` of `node` as a finite number, `None` when absent.
    ///
    /// # Errors
    /// When it is present but not a finite number.
    pub fn number(&self, node: &Node, name: &str) -> Result<Option<f64>> {
        node.get(name)
            .map(|text| {
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| {
                        self.error(node, format!("{name}=\"{text}\" is not a finite number"))
                    })
            })
            .transpose()
    }

    /// The attribute `name` of `node` as an integer, `None` when absent.
    ///
    /// # Errors
    /// When it is present but not an integer.
    pub fn integer(&self, node: &Node, name: &str) -> Result<Option<i64>> {
        node.get(name)
            .map(|text| {
                text.trim()
                    .parse::<i64>()
                    .map_err(|_| self.error(node, format!("{name}=\"{text}\" is not an integer")))
            })
            .transpose()
    }

    /// The attribute `name` of `node` as an integer of any SSP width (−2⁶³ to 2⁶⁴ − 1, the
    /// range of Int64 and UInt64 together), `None` when absent.
    ///
    /// # Errors
    /// When it is present but not an integer of that range.
    ///
    /// Spec: SSP 2.0 §4.5.2 (`ssc:TGenericInteger` of integer mappings).
    pub fn generic_integer(&self, node: &Node, name: &str) -> Result<Option<i128>> {
        node.get(name)
            .map(|text| {
                text.trim()
                    .parse::<i128>()
                    .ok()
                    .filter(|v| (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(v))
                    .ok_or_else(|| {
                        self.error(
                            node,
                            format!("{name}=\"{text}\" is not an integer from -2^63 to 2^64-1"),
                        )
                    })
            })
            .transpose()
    }

    /// The attribute `name` of `node` as an XML boolean (`true`, `false`, `1`, `0`), `None`
    /// when absent.
    ///
    /// # Errors
    /// When it is present but not a boolean.
    pub fn boolean(&self, node: &Node, name: &str) -> Result<Option<bool>> {
        node.get(name)
            .map(|text| match text.trim() {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(self.error(
                    node,
                    format!("{name}=\"{text}\" is not a boolean (true, false, 1 or 0)"),
                )),
            })
            .transpose()
    }
}

/// `Local 'name'` for an element with a `name` attribute, else its local name.
pub(crate) fn describe(node: &Node) -> String {
    match node.get("name") {
        Some(name) => format!("{} '{name}'", node.local_name()),
        None => node.local_name().to_owned(),
    }
}

/// The 1-based line of byte `position` in `bytes`.
fn line_of(bytes: &[u8], position: usize) -> usize {
    1 + bytes[..position.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}
