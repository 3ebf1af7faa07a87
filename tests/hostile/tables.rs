//! CSV/TSV tables of file-reader slaves: rows of the wrong width, cells that are not numbers,
//! time going backwards or in the wrong unit, too little data, an unknown separator, and a
//! `graph` line naming a column that does not exist.
//!
//! The project (`bad.msim`) has the table slave `Table` on line 4, the FMU `Feed` on line 5 and
//! `graph Table.a Feed.InReal` on line 6; the table is `table.tsv` (or `table.csv`).

use super::rows::{Case, Input, Sandbox, case, check_table};

/// Writes `table.<extension>` and the project reading it, with `graph` as line 6.
fn table_project(s: &Sandbox, extension: &str, table: &str, graph: &str) -> Input {
    s.copy_fmu("FourVarsFeedThrough");
    s.write(&format!("table.{extension}"), table.as_bytes());
    s.project(&format!(
        "tStart 0 s\n\
         tEnd 4 s\n\
         hStart 0.5 s\n\
         simulator 0 0 Table #4682b4 \"table.{extension}\"\n\
         simulator 1 0 Feed #6a5acd \"fmus/FourVarsFeedThrough.fmu\"\n\
         {graph}\n"
    ))
}

/// A row reading `$table` as `table.tsv`.
macro_rules! tsv {
    ($table:expr) => {
        |s| table_project(s, "tsv", $table, "graph Table.a Feed.InReal")
    };
}

/// A row reading `$table` as `table.csv`.
macro_rules! csv {
    ($table:expr) => {
        |s| table_project(s, "csv", $table, "graph Table.a Feed.InReal")
    };
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "valid_tsv",
            0,
            "",
            "",
            &[],
            tsv!("time [s]\ta [m]\tb\n0\t1\t2\n2\t3\t4\n4\t5\t6\n"),
        ),
        case(
            "valid_csv",
            0,
            "",
            "",
            &[],
            csv!("time [s],a [m]\n0,1\n2,2\n4,3\n"),
        ),
        case(
            "row_with_too_few_cells",
            2,
            "table.tsv:3:",
            "2 field(s) in this row",
            &["expected 3 as in the header"],
            tsv!("time [s]\ta [m]\tb\n0\t1\t2\n1\t2\n2\t3\t4\n"),
        ),
        case(
            "non_numeric_cell",
            2,
            "table.tsv:3:",
            "column 2 ('a')",
            &["'abc' is not a number"],
            tsv!("time [s]\ta [m]\tb\n0\t1\t2\n1\tabc\t3\n"),
        ),
        case(
            "not_a_number_time",
            2,
            "table.tsv:3:",
            "column 1 ('time')",
            &["'nan' is not a number", "finite number"],
            tsv!("time [s]\ta [m]\n0\t1\nnan\t2\n"),
        ),
        case(
            "decreasing_time",
            2,
            "table.tsv:4:",
            "time 1 s is before 2 s of line 3",
            &["expected increasing times"],
            tsv!("time [s]\ta [m]\n0\t1\n2\t2\n1\t3\n"),
        ),
        case(
            "non_time_unit_in_time_column",
            2,
            "table.tsv:1:",
            "time column unit 'm' is not a time unit",
            &["ms, s, min, h, d, a"],
            tsv!("time [m]\ta [m]\n0\t1\n2\t2\n"),
        ),
        case(
            "only_a_header",
            2,
            "table.tsv",
            "no data",
            &["expected a header line followed by at least one data row"],
            tsv!("time [s]\ta [m]\n"),
        ),
        case("empty_table", 2, "table.tsv", "no data", &[], tsv!("")),
        case(
            "single_column",
            2,
            "table.tsv:1:",
            "cannot tell the column separator",
            &["at least 2"],
            tsv!("time [s]\n0\n1\n"),
        ),
        case(
            "tab_header_comma_rows",
            2,
            "table.csv:1:",
            "cannot tell the column separator",
            &["header: 2 tab- / 1 comma-separated fields"],
            csv!("time [s]\ta [m]\n0,1\n2,2\n"),
        ),
        case(
            "semicolon_separated",
            2,
            "table.csv:1:",
            "cannot tell the column separator",
            &[],
            csv!("time [s];a [m]\n0;1\n2;2\n"),
        ),
        case(
            "graph_names_unknown_column",
            2,
            "bad.msim:6:",
            "slave 'Table' has no variable 'zz'",
            &["table.tsv"],
            |s| {
                table_project(
                    s,
                    "tsv",
                    "time [s]\ta [m]\n0\t1\n4\t2\n",
                    "graph Table.zz Feed.InReal",
                )
            },
        ),
    ]
}

#[test]
fn hostile_tables() {
    check_table("tables", cases());
}
