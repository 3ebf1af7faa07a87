//! The own SSP examples of `projects/ssp/` validated against the SSP 2.0 XML schemas with
//! Python's xmlschema: every `.ssd`, `.ssv`, `.ssm` and `.ssb` file there, those whose root
//! says `version="2.0"` and the SSP 1.0 ones (the 2.0 schemas admit `version="1.0"` and
//! describe the 1.0 content too; the 1.0 schemas themselves are not kept beside them). A
//! `.ssd` file is validated twice: against the XSD 1.0 schema
//! (`SystemStructureDescription.xsd`, which leaves inline parameter sets and mappings open)
//! and against its XSD 1.1 variant (`SystemStructureDescription11.xsd`, which checks them too).
//!
//! The schemas are those of the SSP 2.0 release (2024-12-20): `$MASTERSIM_SSP2_SCHEMAS`, or
//! `../shared/standards/ssp-2.0/schema` next to the workspace. The test fails naming the folder
//! when they are missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use mastersim_tests::workspace_root;

use crate::readers::python;

/// Validates each file given after the schema folder against the schema for its extension and
/// prints `valid <file> <schema>` for each check; exits non-zero with xmlschema's reason.
const VALIDATE: &str = r#"
import os, sys, xmlschema
folder = sys.argv[1]
def load(name, cls=xmlschema.XMLSchema10):
    return cls(os.path.join(folder, name))
schemas = {
    ".ssd": [("SystemStructureDescription.xsd", load("SystemStructureDescription.xsd")),
             ("SystemStructureDescription11.xsd",
              load("SystemStructureDescription11.xsd", xmlschema.XMLSchema11))],
    ".ssv": [("SystemStructureParameterValues.xsd", load("SystemStructureParameterValues.xsd"))],
    ".ssm": [("SystemStructureParameterMapping.xsd",
              load("SystemStructureParameterMapping.xsd"))],
    ".ssb": [("SystemStructureSignalDictionary.xsd",
              load("SystemStructureSignalDictionary.xsd"))],
}
for path in sys.argv[2:]:
    for name, schema in schemas[os.path.splitext(path)[1]]:
        schema.validate(path)
        print("valid", path, name)
"#;

/// The folder of the SSP 2.0 schemas, which must exist.
fn schema_dir() -> PathBuf {
    let dir = std::env::var_os("MASTERSIM_SSP2_SCHEMAS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/standards/ssp-2.0/schema"));
    assert!(
        dir.join("SystemStructureDescription.xsd").is_file(),
        "the SSP 2.0 schemas are missing: looked for 'SystemStructureDescription.xsd' in '{}'",
        dir.display()
    );
    dir
}

/// Whether the root element of the XML file `path` says `version="2.0"`.
fn says_ssp2(path: &Path) -> bool {
    root_tag(path).contains("version=\"2.0\"")
}

/// The start tag of the root element of the XML file `path`.
fn root_tag(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("readable example");
    let mut rest = text.as_str();
    loop {
        let start = rest
            .find('<')
            .unwrap_or_else(|| panic!("no root element in '{}'", path.display()));
        rest = &rest[start..];
        // Skip the XML declaration and comments, which may hold any text.
        let skip = [("<?", "?>"), ("<!--", "-->")]
            .into_iter()
            .find(|(open, _)| rest.starts_with(open));
        let close = skip.map_or(">", |(_, close)| close);
        let end = rest
            .find(close)
            .unwrap_or_else(|| panic!("an unclosed tag in '{}'", path.display()));
        if skip.is_none() {
            return rest[..end].to_owned();
        }
        rest = &rest[end + close.len()..];
    }
}

/// The SSP files of `projects/ssp/`, sorted.
fn examples() -> Vec<PathBuf> {
    let folder = workspace_root().join("projects/ssp");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("projects/ssp")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| {
            path.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "ssd" | "ssv" | "ssm" | "ssb"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn ssp_examples_validate_against_the_ssp2_schemas() {
    let files = examples();
    let name = |f: &PathBuf| {
        f.file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned()
    };
    let ssp2: Vec<String> = files.iter().filter(|f| says_ssp2(f)).map(name).collect();
    for kind in ["ssd", "ssv", "ssm", "ssb"] {
        assert!(
            ssp2.iter().any(|n| n.ends_with(kind)),
            "no SSP 2.0 .{kind} example among {ssp2:?}"
        );
    }
    let names: Vec<String> = files.iter().map(name).collect();
    assert!(
        names.len() > ssp2.len() + 10,
        "expected the SSP 1.0 examples beside the 2.0 ones: {names:?}"
    );
    let out = Command::new(python())
        .args(["-c", VALIDATE])
        .arg(schema_dir())
        .args(&files)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "an SSP example is not valid: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ssd = names.iter().filter(|n| n.ends_with(".ssd")).count();
    assert_eq!(
        stdout.matches("valid ").count(),
        files.len() + ssd,
        "{stdout}"
    );
}
