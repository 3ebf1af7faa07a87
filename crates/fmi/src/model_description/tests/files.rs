//! Reading `modelDescription.xml` from disk: the size limit and files that are not regular
//! files, checked before anything is read.

use std::time::{Duration, Instant};

use super::{FILE, v2_vars};
use crate::Error;
use crate::model_description::{MAX_DESCRIPTION_SIZE, ModelDescription};

#[test]
fn a_file_larger_than_the_limit_is_refused_unread() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(FILE);
    // 1.2 GB, sparse: a valid start and then zeros, which no parser gets to see.
    let file = std::fs::File::create(&path).unwrap();
    std::io::Write::write_all(&mut &file, v2_vars("").as_bytes()).unwrap();
    file.set_len(1_200_000_000).unwrap();
    drop(file);
    let started = Instant::now();
    let err = ModelDescription::from_file(&path).unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(
            &err,
            Error::DescriptionTooLarge {
                size: Some(1_200_000_000),
                declared: false,
                limit: MAX_DESCRIPTION_SIZE,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: 1200000000 bytes (1.1 GiB), more than the limit of 268435456 bytes (256 MiB) \
             on a model description, which real ones stay far below; it is not read",
            path.display()
        )
    );
    // At the limit it is read.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(MAX_DESCRIPTION_SIZE)
        .unwrap();
    let read = ModelDescription::from_file(&path);
    assert!(
        !matches!(read, Err(Error::DescriptionTooLarge { .. })),
        "{read:?}"
    );
}

#[test]
fn devices_pipes_and_directories_are_not_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("pipe.xml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Opening a pipe without a writer would block for ever: refused before that.
    for (path, kind) in [
        (fifo.as_path(), "a named pipe"),
        (std::path::Path::new("/dev/zero"), "a character device"),
        (tmp.path(), "a directory"),
    ] {
        let err = ModelDescription::from_file(path).unwrap_err();
        assert!(
            matches!(&err, Error::NotAFile { kind: k, .. } if *k == kind),
            "{}: {err}",
            path.display()
        );
        assert!(
            err.to_string().ends_with(&format!(
                "not a regular file ({kind}); a model description must be a file"
            )),
            "{err}"
        );
    }
    // A link to a regular file is followed.
    let real = tmp.path().join("real.xml");
    std::fs::write(&real, v2_vars("")).unwrap();
    let link = tmp.path().join("link.xml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ModelDescription::from_file(&link).unwrap();
}
