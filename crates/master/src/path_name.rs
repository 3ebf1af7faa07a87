//! Names that become path components: a slave's results directory
//! (`<working dir>/slaves/<slave name>`, handed to FMUs with a `ResultsRootDir` parameter) and
//! any other folder named after something a project file chose.
//!
//! A project may name a slave anything (MasterSim 0.9.8 checks nothing; an SSP component name
//! is free text), including `/`, `..` or an absolute path. Such a name must never lead a run
//! outside its folder, so [`component`] turns any name into exactly one path component, and
//! [`join`] checks that the joined path stays directly inside its folder.
//!
//! The mapping is one to one for names up to [`MAX_COMPONENT`] bytes, and readable: ordinary
//! names stay as they are.

use std::path::{Component, Path, PathBuf};

/// Longest component [`component`] returns, bytes: below the 255 bytes that Linux and most
/// file systems allow for one name.
pub const MAX_COMPONENT: usize = 200;

/// `name` as one path component:
/// - `/`, `\`, `%`, NUL and the other control characters are written `%XX` (the byte in
///   hexadecimal), so that no separator remains and different names stay different;
/// - the names `.` and `..` become `%2E` and `%2E%2E`, the empty name `%`;
/// - a result longer than [`MAX_COMPONENT`] bytes is cut at a character boundary and ends in
///   `~` and 16 hexadecimal digits of a hash of the whole name (FNV-1a, 64 bits).
pub fn component(name: &str) -> String {
    let escaped = match name {
        "" => "%".to_owned(),
        "." => "%2E".to_owned(),
        ".." => "%2E%2E".to_owned(),
        _ => {
            let mut text = String::with_capacity(name.len());
            for c in name.chars() {
                if matches!(c, '/' | '\\' | '%') || c.is_control() {
                    let mut bytes = [0u8; 4];
                    for b in c.encode_utf8(&mut bytes).bytes() {
                        text.push_str(&format!("%{b:02X}"));
                    }
                } else {
                    text.push(c);
                }
            }
            text
        }
    };
    if escaped.len() <= MAX_COMPONENT {
        return escaped;
    }
    let suffix = format!("~{:016x}", fnv1a(name.as_bytes()));
    let mut cut = MAX_COMPONENT - suffix.len();
    while !escaped.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", &escaped[..cut])
}

/// `dir/<component(name)>`: a path directly inside `dir`, whatever `name` holds (the
/// property test `any_name_stays_inside_its_folder` checks it for arbitrary names).
pub fn join(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(component(name));
    debug_assert!(is_directly_inside(&path, dir), "invariant: one component");
    path
}

/// Whether `path` is `dir` followed by exactly one normal component.
pub fn is_directly_inside(path: &Path, dir: &Path) -> bool {
    path.strip_prefix(dir).is_ok_and(|rest| {
        let mut parts = rest.components();
        matches!(parts.next(), Some(Component::Normal(_))) && parts.next().is_none()
    })
}

/// The 64-bit FNV-1a hash of `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ordinary_names_stay_and_hostile_ones_become_one_component() {
        assert_eq!(component("Prey"), "Prey");
        assert_eq!(component("Prey 2 (copy)"), "Prey 2 (copy)");
        assert_eq!(component("a/b"), "a%2Fb");
        assert_eq!(component("../../etc"), "..%2F..%2Fetc");
        assert_eq!(component("/tmp/x"), "%2Ftmp%2Fx");
        assert_eq!(component(".."), "%2E%2E");
        assert_eq!(component("."), "%2E");
        assert_eq!(component(""), "%");
        assert_eq!(component("50%"), "50%25");
        assert_eq!(component("a\\b"), "a%5Cb");
        assert_eq!(component("tab\there"), "tab%09here");
        let long = "ä".repeat(300);
        let cut = component(&long);
        assert!(cut.len() <= MAX_COMPONENT, "{}", cut.len());
        assert_ne!(cut, component(&"ä".repeat(301)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Whatever the name, the joined path is one component directly inside the folder,
        /// and distinct names give distinct paths.
        #[test]
        fn any_name_stays_inside_its_folder(a in any::<String>(), b in any::<String>()) {
            let dir = Path::new("/work/wd/slaves");
            for name in [&a, &b] {
                let path = join(dir, name);
                prop_assert!(is_directly_inside(&path, dir), "{name:?} -> {path:?}");
                prop_assert!(component(name).len() <= MAX_COMPONENT);
            }
            if a != b {
                prop_assert_ne!(join(dir, &a), join(dir, &b));
            }
        }

        /// Names built from the dangerous pieces only.
        #[test]
        fn separators_and_dots_never_escape(
            parts in proptest::collection::vec(
                prop_oneof![Just(".."), Just("."), Just("/"), Just("\\"), Just("%2F"),
                            Just("\0"), Just("a")],
                0..12,
            )
        ) {
            let name = parts.concat();
            let dir = Path::new("wd/slaves");
            let path = join(dir, &name);
            prop_assert!(is_directly_inside(&path, dir), "{name:?} -> {path:?}");
        }
    }
}
