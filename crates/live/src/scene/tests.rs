use std::path::Path;

use super::*;

fn columns() -> Vec<String> {
    ["Aircraft.h", "Aircraft.v", "Prey.x"]
        .map(String::from)
        .to_vec()
}

fn parse(text: &str) -> Result<Scene, SceneError> {
    Scene::parse(text, Path::new("views/s.toml"), &columns())
}

#[test]
fn a_scene_is_read_with_its_variables_resolved_to_columns() {
    let scene = parse(
        "[frame]\nx = [0, 10]\ny = \"auto\"\naspect = \"equal\"\n\n\
         [[object]]\nid = \"plane\"\nkind = \"rectangle\"\nx = \"time\"\n\
         y = { var = \"Aircraft.h\", scale = 2, offset = -1 }\nwidth = 1\nheight = 0.5\n\
         fill = true\ncolour = \"#447CB4\"\n\n\
         [[object]]\nid = \"path\"\nlabel = \"Path\"\nkind = \"polyline\"\n\
         points = [[0, 0], [1, \"Aircraft.v\"]]\n\
         color = { r = \"Prey.x\", g = 0, b = 255 }\nvisible = false\n",
    )
    .unwrap();
    assert_eq!(
        scene.frame,
        Frame {
            x: Some([0.0, 10.0]),
            y: None,
            equal: true,
            height: 320.0
        }
    );
    let plane = &scene.objects[0];
    assert_eq!(
        (plane.label.as_str(), plane.kind, plane.line),
        ("plane", Kind::Rectangle, 6)
    );
    assert_eq!(
        plane.attributes["y"],
        Attribute::Variable {
            var: "Aircraft.h".into(),
            col: 1,
            scale: 2.0,
            offset: -1.0
        }
    );
    assert_eq!(
        plane.attributes["x"],
        Attribute::Variable {
            var: "time".into(),
            col: 0,
            scale: 1.0,
            offset: 0.0
        }
    );
    assert!(plane.fill);
    assert_eq!(plane.colour, Colour::rgb(0x447cb4));
    let path = &scene.objects[1];
    assert_eq!(
        path.points[1][1],
        Attribute::Variable {
            var: "Aircraft.v".into(),
            col: 2,
            scale: 1.0,
            offset: 0.0
        }
    );
    assert_eq!(path.attributes["visible"], Attribute::Constant(0.0));
    assert!(matches!(path.colour.r, Attribute::Variable { col: 3, .. }));
    // What the page receives: constants as numbers, variables with their column.
    let json = serde_json::to_value(&scene).unwrap();
    assert_eq!(json["objects"][0]["attributes"]["width"], 1.0);
    assert_eq!(json["objects"][0]["attributes"]["y"]["col"], 1);
    assert_eq!(json["frame"]["y"], serde_json::Value::Null);
}

/// Every bad scene names the file and the line, and says what was expected.
#[test]
fn bad_scenes_name_file_line_and_what_was_expected() {
    let object = "[[object]]\nid = \"a\"\n";
    let mut wrong = Vec::new();
    for (text, line, says) in [
        ("[frame\nx = 1\n".to_owned(), 1, "expected a TOML scene"),
        (
            "[frame]\nx = [1, 1]\n".to_owned(),
            2,
            "invalid x, expected [min, max]",
        ),
        ("[frame]\ny = \"fit\"\n".to_owned(), 2, "or \"auto\""),
        (
            "[frame]\naspect = 2\n".to_owned(),
            2,
            "expected \"equal\" or \"free\"",
        ),
        ("[frame]\nheight = 5\n".to_owned(), 2, "from 40 to 4000"),
        ("[frame]\nzoom = 5\n".to_owned(), 2, "unknown key 'zoom'"),
        ("[view]\n".to_owned(), 1, "unknown field `view`"),
        (
            "[[object]]\nkind = \"point\"\n".to_owned(),
            1,
            "without an id",
        ),
        (object.to_owned(), 1, "object 'a': no kind"),
        (
            format!("{object}kind = \"sphere\"\n"),
            3,
            "invalid kind \"sphere\", expected \"point\"",
        ),
        (
            format!("{object}kind = \"point\"\nx = 1\n"),
            1,
            "a point needs 'y'",
        ),
        (
            format!("{object}kind = \"point\"\nx = 1\ny = 2\nlength = 3\n"),
            6,
            "a point takes no 'length', expected one of",
        ),
        (
            format!("{object}kind = \"point\"\nx = \"Aircraft.hh\"\ny = 2\n"),
            4,
            "object 'a': x: variable 'Aircraft.hh' does not exist in the project's results; \
             expected a numeric result variable such as Aircraft.h, Aircraft.v",
        ),
        (
            format!("{object}kind = \"point\"\nx = \"Wing.z\"\ny = 2\n"),
            4,
            "no result variable of that slave exists",
        ),
        (
            format!("{object}kind = \"point\"\nx = [1]\ny = 2\n"),
            4,
            "invalid value [1], expected a number",
        ),
        (
            format!("{object}kind = \"point\"\nx = {{ scale = 2 }}\ny = 2\n"),
            4,
            "no 'var' in the table",
        ),
        (
            format!("{object}kind = \"point\"\nx = {{ var = \"Prey.x\", gain = 2 }}\ny = 2\n"),
            4,
            "invalid key 'gain'",
        ),
        (
            format!("{object}kind = \"point\"\nx = 1\ny = 2\ncolour = \"mauve\"\n"),
            6,
            "unknown colour name 'mauve'",
        ),
        (
            format!("{object}kind = \"point\"\nx = 1\ny = 2\ncolour = \"#12345\"\n"),
            6,
            "is not #rrggbb",
        ),
        (
            format!("{object}kind = \"point\"\nx = 1\ny = 2\ncolour = {{ r = 1, g = 2 }}\n"),
            6,
            "no 'b' component",
        ),
        (
            format!("{object}kind = \"circle\"\nx = 1\ny = 2\nradius = 1\nfill = 1\n"),
            7,
            "fill: expected true or false",
        ),
        (
            format!("{object}kind = \"text\"\nx = 1\ny = 2\n"),
            1,
            "a text needs text = ",
        ),
        (
            format!("{object}kind = \"text\"\nx = 1\ny = 2\ntext = \"h\"\ndecimals = 40\n"),
            7,
            "from 0 to 15",
        ),
        (
            format!("{object}kind = \"polyline\"\npoints = [[0, 1]]\n"),
            1,
            "at least two points",
        ),
        (
            format!("{object}kind = \"polyline\"\npoints = [[0, 1], [2]]\n"),
            4,
            "points: expected [[x, y]",
        ),
        (
            format!("{object}kind = \"trace\"\nx = 1\ny = 2\n"),
            1,
            "a variable for x or y",
        ),
        (
            format!("{object}kind = \"point\"\nlabel = 3\nx = 1\ny = 2\n"),
            4,
            "invalid label",
        ),
        (
            format!(
                "{object}kind = \"point\"\nx = 1\ny = 2\n\n{object}kind = \"point\"\nx = 1\ny = 2\n"
            ),
            7,
            "object id 'a' is already used on line 1",
        ),
    ] {
        let e = parse(&text).unwrap_err().to_string();
        if !e.starts_with(&format!("views/s.toml:{line}: ")) || !e.contains(says) {
            wrong.push(format!("{text:?}: line {line}, '{says}' expected: {e}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn an_unreadable_file_is_named() {
    let e = Scene::load(Path::new("/nonexistent/s.toml"), &columns())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("/nonexistent/s.toml:0: cannot read the scene file"),
        "{e}"
    );
}

/// The two bundled scenes read against the columns of their projects' results.
#[test]
fn the_bundled_scenes_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../projects");
    let flight: Vec<String> = ["Aircraft.h", "Aircraft.v", "Navigation.hEst"]
        .map(String::from)
        .to_vec();
    let scene = Scene::load(
        &root.join("flight_navigation_multirate.scene.toml"),
        &flight,
    )
    .unwrap();
    let aircraft = scene.objects.iter().find(|o| o.id == "aircraft").unwrap();
    assert!(
        matches!(&aircraft.attributes["y"], Attribute::Variable { var, .. } if var == "Aircraft.h")
    );
    let lv: Vec<String> = ["Prey.x", "Predator.y"].map(String::from).to_vec();
    let scene = Scene::load(&root.join("lotka_volterra.scene.toml"), &lv).unwrap();
    assert_eq!(scene.objects[0].kind, Kind::Trace);
    assert_eq!((scene.frame.x, scene.frame.y), (None, None));
}
