//! The shared region: a file in `/dev/shm` of `REGION_SIZE` bytes, mapped shared by the master
//! and one helper (protocol.h describes the layout).

use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::protocol::{
    MAGIC, OFF_MAGIC, OFF_VERSION, PROTOCOL_VERSION, REGION_SIZE, REQUEST_CAPACITY, REQUEST_OFFSET,
    RESPONSE_CAPACITY, RESPONSE_OFFSET,
};

/// One mapped region; unmapped (and its file removed, if still there) on drop.
#[derive(Debug)]
pub(crate) struct Region {
    base: *mut u8,
    path: PathBuf,
    linked: bool,
}

// SAFETY: the region is plain shared memory; all header accesses are atomic and the payload
// areas are only touched through `&mut self` / `&self` borrows of the owning `Helper`.
unsafe impl Send for Region {}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl Region {
    /// Creates `/dev/shm/mastersim-<pid>-<n>` (mode 0600), sizes and maps it, writes the magic
    /// word and the protocol version.
    pub(crate) fn create() -> io::Result<Region> {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = PathBuf::from(format!("/dev/shm/mastersim-{}-{n}", std::process::id()));
        let c_path = CString::new(path.as_os_str().as_encoded_bytes()).map_err(io::Error::other)?;
        // SAFETY: `c_path` is a NUL-terminated path; the flags create a new file or fail.
        let fd = unsafe {
            libc::open(
                c_path.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                0o600,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is the file just opened; ftruncate sizes it, mmap maps all of it.
        let base = unsafe {
            let sized = libc::ftruncate(fd, REGION_SIZE as libc::off_t) == 0;
            let base = if sized {
                libc::mmap(
                    std::ptr::null_mut(),
                    REGION_SIZE,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            } else {
                libc::MAP_FAILED
            };
            let error = io::Error::last_os_error();
            libc::close(fd);
            if base == libc::MAP_FAILED {
                libc::unlink(c_path.as_ptr());
                return Err(error);
            }
            base.cast::<u8>()
        };
        let region = Region {
            base,
            path,
            linked: true,
        };
        region
            .word(OFF_VERSION)
            .store(PROTOCOL_VERSION, Ordering::Relaxed);
        region.word(OFF_MAGIC).store(MAGIC, Ordering::Release);
        Ok(region)
    }

    /// The file's path (on this machine).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file (the mappings stay); done once the helper has mapped it.
    pub(crate) fn unlink(&mut self) {
        if std::mem::take(&mut self.linked) {
            let _ = std::fs::remove_file(&self.path);
        }
    }

    /// The header word at `offset` (a multiple of 4 inside the header).
    pub(crate) fn word(&self, offset: usize) -> &AtomicU32 {
        assert!(
            offset.is_multiple_of(4) && offset + 4 <= REQUEST_OFFSET,
            "header offset {offset}"
        );
        // SAFETY: the offset is aligned and inside the mapping, which lives as long as `self`;
        // the word is only accessed atomically by both processes.
        unsafe { &*self.base.add(offset).cast::<AtomicU32>() }
    }

    /// The request area.
    pub(crate) fn request_area(&mut self) -> &mut [u8] {
        // SAFETY: the area lies inside the mapping; the helper reads it only between the
        // master's request and its response, while the master does not write it.
        unsafe { std::slice::from_raw_parts_mut(self.base.add(REQUEST_OFFSET), REQUEST_CAPACITY) }
    }

    /// The response area.
    pub(crate) fn response_area(&self) -> &[u8] {
        // SAFETY: the area lies inside the mapping; the helper writes it only while it answers
        // a request, and the master reads it only after the answer is complete.
        unsafe { std::slice::from_raw_parts(self.base.add(RESPONSE_OFFSET), RESPONSE_CAPACITY) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        self.unlink();
        // SAFETY: `base` is the mapping of REGION_SIZE bytes made in `create`.
        unsafe {
            libc::munmap(self.base.cast(), REGION_SIZE);
        }
    }
}
