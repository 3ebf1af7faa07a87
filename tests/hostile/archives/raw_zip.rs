//! Zip archives written byte by byte, for what the `zip` crate's writer will not write: one
//! name listed twice, entries that declare false sizes, and entries that share their bytes.
//!
//! [`RawZip::overlapping`] builds the overlapping-entry zip bomb that David Fifield describes
//! in "A better zip bomb" (WOOT 2019): one deflated kernel at the end, and before it the local
//! headers of all entries, each followed by a 5-byte stored (uncompressed) deflate block that
//! quotes the next local header. The deflate stream of entry `k` therefore reads the local
//! headers of entries `k+1 …` as literal data and then the kernel: every entry inflates to
//! the kernel and more, each declares its true size and CRC-32, and the kernel is stored once.
//! A reader that follows the central directory (as `unzip` does) extracts `n` times the kernel.
//!
//! Spec: PKWARE APPNOTE 6.3.10 §4.3.7 (local file header), §4.3.12 (central directory
//! header), §4.3.16 (end of central directory record); RFC 1951 §3.2.4 (stored blocks).

use std::io::{Read, Write};

/// An archive being written: local headers and data, and the central directory records.
#[derive(Default)]
pub struct RawZip {
    bytes: Vec<u8>,
    central: Vec<u8>,
    count: u16,
}

/// Compression method numbers.
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// What a central directory record says about an entry.
struct Declared<'a> {
    name: &'a str,
    method: u16,
    crc: u32,
    compressed: u32,
    size: u32,
}

impl RawZip {
    /// A stored entry `name` holding `data`.
    pub fn stored(&mut self, name: &str, data: &[u8]) -> &mut RawZip {
        self.add(name, STORED, data, crc32(data), data.len())
    }

    /// A deflated entry `name` holding `data` that declares `size` bytes (its true size, or
    /// a false one).
    pub fn deflated_declaring(&mut self, name: &str, data: &[u8], size: usize) -> &mut RawZip {
        self.add(name, DEFLATED, &deflate(data), crc32(data), size)
    }

    /// Entries `name` (the first) and `others`, whose central directory records all point at
    /// one local header and its stored `data`.
    pub fn shared_header(&mut self, name: &str, others: &[&str], data: &[u8]) -> &mut RawZip {
        let offset = self.bytes.len();
        self.stored(name, data);
        for other in others {
            self.record(
                &Declared {
                    name: other,
                    method: STORED,
                    crc: crc32(data),
                    compressed: len32(data.len()),
                    size: len32(data.len()),
                },
                offset,
            );
        }
        self
    }

    /// `n` entries `<prefix>000.bin` … whose data overlap (module documentation): each
    /// inflates to a `kernel` bytes of zeros plus the local headers after its own, and
    /// declares that true size and CRC-32.
    pub fn overlapping(&mut self, prefix: &str, n: usize, kernel: usize) -> &mut RawZip {
        let zeros = vec![0u8; kernel];
        let compressed_kernel = deflate(&zeros);
        let names: Vec<String> = (0..n).map(|k| format!("{prefix}{k:03}.bin")).collect();
        // From the last entry to the first: each one's content starts with the local headers
        // of the entries after it.
        let mut headers = vec![Vec::new(); n];
        let mut declared = Vec::with_capacity(n);
        let mut quoted: Vec<u8> = Vec::new();
        let mut compressed = compressed_kernel.len();
        for k in (0..n).rev() {
            if k + 1 < n {
                compressed += 5 + headers[k + 1].len();
            }
            let crc = crc32_of(&[&quoted, &zeros]);
            let entry = Declared {
                name: &names[k],
                method: DEFLATED,
                crc,
                compressed: len32(compressed),
                size: len32(quoted.len() + kernel),
            };
            headers[k] = local_header(&entry);
            quoted.splice(0..0, headers[k].iter().copied());
            declared.push(entry);
        }
        declared.reverse();
        for k in 0..n {
            let offset = self.bytes.len();
            self.bytes.extend_from_slice(&headers[k]);
            if k + 1 < n {
                // A stored, non-final deflate block of the next local header's length: the
                // next local header is its content.
                let length = u16::try_from(headers[k + 1].len()).expect("short header");
                self.bytes.push(0);
                self.bytes.extend_from_slice(&length.to_le_bytes());
                self.bytes.extend_from_slice(&(!length).to_le_bytes());
            } else {
                self.bytes.extend_from_slice(&compressed_kernel);
            }
            self.record(&declared[k], offset);
        }
        self
    }

    /// The archive: entries, central directory, end record.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = self.bytes.clone();
        let directory_offset = len32(out.len());
        out.extend_from_slice(&self.central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        out.extend_from_slice(&[0, 0, 0, 0]);
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&len32(self.central.len()).to_le_bytes());
        out.extend_from_slice(&directory_offset.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out
    }

    fn add(&mut self, name: &str, method: u16, data: &[u8], crc: u32, size: usize) -> &mut Self {
        let entry = Declared {
            name,
            method,
            crc,
            compressed: len32(data.len()),
            size: len32(size),
        };
        let offset = self.bytes.len();
        self.bytes.extend_from_slice(&local_header(&entry));
        self.bytes.extend_from_slice(data);
        self.record(&entry, offset);
        self
    }

    /// Appends the central directory record of `entry`, whose local header is at `offset`.
    fn record(&mut self, entry: &Declared<'_>, offset: usize) {
        let c = &mut self.central;
        c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        c.extend_from_slice(&(0x0300u16 | 20).to_le_bytes()); // made by: Unix, 2.0
        c.extend_from_slice(&20u16.to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes()); // flags
        c.extend_from_slice(&entry.method.to_le_bytes());
        c.extend_from_slice(&[0, 0, 0x21, 0]); // 1980-01-01 00:00
        c.extend_from_slice(&entry.crc.to_le_bytes());
        c.extend_from_slice(&entry.compressed.to_le_bytes());
        c.extend_from_slice(&entry.size.to_le_bytes());
        c.extend_from_slice(&u16::try_from(entry.name.len()).expect("name").to_le_bytes());
        c.extend_from_slice(&[0; 8]); // extra, comment, disk, internal attributes
        c.extend_from_slice(&(0o100_644u32 << 16).to_le_bytes());
        c.extend_from_slice(&len32(offset).to_le_bytes());
        c.extend_from_slice(entry.name.as_bytes());
        self.count += 1;
    }
}

/// The local file header of `entry`.
fn local_header(entry: &Declared<'_>) -> Vec<u8> {
    let mut h = Vec::with_capacity(30 + entry.name.len());
    h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    h.extend_from_slice(&20u16.to_le_bytes());
    h.extend_from_slice(&0u16.to_le_bytes());
    h.extend_from_slice(&entry.method.to_le_bytes());
    h.extend_from_slice(&[0, 0, 0x21, 0]);
    h.extend_from_slice(&entry.crc.to_le_bytes());
    h.extend_from_slice(&entry.compressed.to_le_bytes());
    h.extend_from_slice(&entry.size.to_le_bytes());
    h.extend_from_slice(&u16::try_from(entry.name.len()).expect("name").to_le_bytes());
    h.extend_from_slice(&0u16.to_le_bytes());
    h.extend_from_slice(entry.name.as_bytes());
    h
}

fn len32(n: usize) -> u32 {
    u32::try_from(n).expect("no Zip64 here")
}

/// The raw deflate stream of `data`, as the `zip` crate's writer compresses it.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(data.len() >= u32::MAX as usize);
    writer.start_file("x", options).expect("zip entry");
    writer.write_all(data).expect("zip data");
    let bytes = writer.finish().expect("zip").into_inner();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("own zip");
    let mut raw = Vec::new();
    archive
        .by_index_raw(0)
        .expect("own entry")
        .read_to_end(&mut raw)
        .expect("raw data");
    raw
}

/// CRC-32 (IEEE 802.3, as zip uses it) of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    crc32_of(&[data])
}

/// CRC-32 of the concatenation of `parts`.
fn crc32_of(parts: &[&[u8]]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = [0u32; 256];
        for (i, slot) in table.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        table
    });
    let mut crc = !0u32;
    for part in parts {
        for &b in *part {
            crc = table[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
        }
    }
    !crc
}
