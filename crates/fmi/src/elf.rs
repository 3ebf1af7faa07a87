//! The ELF header of an FMU's shared library: which machine it was built for. A library of
//! another architecture in `binaries/linux64/` (an AArch64 build, a 32-bit one) makes
//! `dlopen` fail with a misleading "No such file or directory"; reading the header first lets
//! [`crate::Fmu::load`] name the architecture instead.
//!
//! Spec: System V ABI, ELF header (`e_ident`: magic, class, data encoding; `e_machine`);
//! the machine numbers of the ELF registry (`EM_X86_64` = 62, `EM_AARCH64` = 183, …).

use std::io::Read as _;
use std::path::Path;

/// An ELF file's class and machine, as its header declares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElfTarget {
    /// `true` for ELFCLASS64, `false` for ELFCLASS32.
    pub(crate) wide: bool,
    /// `e_machine`.
    pub(crate) machine: u16,
}

impl ElfTarget {
    /// The target of the ELF header at the start of `bytes`; `None` when `bytes` does not
    /// start with an ELF header (too short, no magic, an unknown class or data encoding).
    pub(crate) fn from_header(bytes: &[u8]) -> Option<ElfTarget> {
        let header = bytes.get(..20)?;
        if header[..4] != *b"\x7fELF" {
            return None;
        }
        let wide = match header[4] {
            1 => false,
            2 => true,
            _ => return None,
        };
        let raw = [header[18], header[19]];
        let machine = match header[5] {
            1 => u16::from_le_bytes(raw),
            2 => u16::from_be_bytes(raw),
            _ => return None,
        };
        Some(ElfTarget { wide, machine })
    }

    /// The target of the file `path`; `None` when it cannot be read or is no ELF file (then
    /// `dlopen` reports what it is).
    pub(crate) fn of_file(path: &Path) -> Option<ElfTarget> {
        let mut header = [0u8; 20];
        let mut file = std::fs::File::open(path).ok()?;
        file.read_exact(&mut header).ok()?;
        ElfTarget::from_header(&header)
    }

    /// The target this program runs on, when it is one this module knows.
    pub(crate) fn host() -> Option<ElfTarget> {
        let machine = match std::env::consts::ARCH {
            "x86_64" => 62,
            "x86" => 3,
            "aarch64" => 183,
            "arm" => 40,
            "riscv64" => 243,
            "powerpc64" => 21,
            "s390x" => 22,
            _ => return None,
        };
        Some(ElfTarget {
            wide: cfg!(target_pointer_width = "64"),
            machine,
        })
    }

    /// The architecture in words: `x86-64`, `AArch64 (64-bit ARM)`, `32-bit x86`, or the
    /// machine number for one this module does not name.
    pub(crate) fn describe(&self) -> String {
        let name = match self.machine {
            3 => "x86 (i386)",
            8 => "MIPS",
            20 => "PowerPC",
            21 => "PowerPC64",
            22 => "IBM S/390",
            40 => "ARM (32-bit)",
            62 => "x86-64",
            183 => "AArch64 (64-bit ARM)",
            243 => "RISC-V",
            other => return format!("ELF machine {other}, {}-bit", self.bits()),
        };
        match (self.machine, self.bits()) {
            (3 | 8 | 20 | 40, 32) | (21 | 22 | 62 | 183, 64) | (243, _) => name.to_owned(),
            (_, bits) => format!("{name}, {bits}-bit"),
        }
    }

    fn bits(&self) -> u32 {
        if self.wide { 64 } else { 32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header of `class` (1, 2) and `data` (1 LE, 2 BE) for `machine`.
    fn header(class: u8, data: u8, machine: u16) -> Vec<u8> {
        let mut h = b"\x7fELF".to_vec();
        h.extend([class, data, 1, 0]);
        h.resize(18, 0);
        let m = if data == 2 {
            machine.to_be_bytes()
        } else {
            machine.to_le_bytes()
        };
        h.extend(m);
        h.extend([1, 0, 0, 0]);
        h
    }

    #[test]
    fn headers_name_their_machine() {
        let aarch64 = ElfTarget::from_header(&header(2, 1, 183)).expect("ELF");
        assert_eq!(aarch64.describe(), "AArch64 (64-bit ARM)");
        let i386 = ElfTarget::from_header(&header(1, 1, 3)).expect("ELF");
        assert_eq!(i386.describe(), "x86 (i386)");
        let ppc = ElfTarget::from_header(&header(2, 2, 21)).expect("ELF");
        assert_eq!(ppc.describe(), "PowerPC64");
        let x32 = ElfTarget::from_header(&header(1, 1, 62)).expect("ELF");
        assert_eq!(x32.describe(), "x86-64, 32-bit");
        assert_eq!(
            ElfTarget::from_header(&header(2, 1, 9999))
                .expect("ELF")
                .describe(),
            "ELF machine 9999, 64-bit"
        );
        assert_eq!(ElfTarget::from_header(b"MZ\x90\0"), None);
        assert_eq!(ElfTarget::from_header(&header(2, 1, 62)[..10]), None);
    }

    #[test]
    fn this_test_binary_is_the_host() {
        let exe = std::env::current_exe().expect("test binary");
        assert_eq!(ElfTarget::of_file(&exe), ElfTarget::host());
    }
}
