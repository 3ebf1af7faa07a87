//! Builds and packs every FMU (runs cargo), and checks the committed copies in `fmus/packed`.

use std::fs;
use std::io::{Cursor, Read};
use std::path::Path;

use fmu_packer::{
    ModelSpec, all_models, build_and_pack, default_out_dir, platform_dir, workspace_root,
};

fn entries(fmu: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = fs::read(fmu).unwrap_or_else(|e| panic!("{}: {e}", fmu.display()));
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("a zip archive");
    (0..archive.len())
        .map(|i| {
            let mut file = archive.by_index(i).expect("entry");
            let mut data = Vec::new();
            file.read_to_end(&mut data).expect("readable entry");
            (file.name().expect("UTF-8 name").into_owned(), data)
        })
        .collect()
}

#[test]
fn build_and_pack_matches_the_sources_and_the_committed_copies() {
    let root = workspace_root();
    let out = tempfile::tempdir().expect("temp dir");
    let paths = build_and_pack(&root, out.path()).expect("build and pack");
    let models: Vec<&ModelSpec> = all_models().collect();
    assert_eq!(paths.len(), models.len());
    for (model, path) in models.into_iter().zip(&paths) {
        assert_eq!(path, &out.path().join(format!("{}.fmu", model.name)));
        let xml = fs::read(model.xml_path(&root)).expect("source XML");
        let fresh = entries(path);
        let names: Vec<&str> = fresh.iter().map(|(n, _)| n.as_str()).collect();
        let version = model
            .read_model_description(&root)
            .expect("readable XML")
            .fmi_version;
        let library = format!("binaries/{}/{}.so", platform_dir(version), model.name);
        assert_eq!(names, [library.as_str(), "modelDescription.xml"]);
        assert_eq!(
            fresh[1].1, xml,
            "{}: packed XML differs from the source",
            model.name
        );
        assert_eq!(&fresh[0].1[..4], b"\x7fELF");

        let committed = entries(&default_out_dir(&root).join(format!("{}.fmu", model.name)));
        assert_eq!(
            committed[1].1, xml,
            "{}: fmus/packed is stale, run `cargo pack-fmus`",
            model.name
        );
    }
}
