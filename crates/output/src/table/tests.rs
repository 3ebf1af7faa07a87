use super::*;

/// Options that tell the separator, keep empty fields and require equal field counts.
const STRICT: ReadOptions = ReadOptions {
    separator: None,
    drop_empty_fields: false,
    equal_field_counts: true,
};

fn parse(text: &str, options: &ReadOptions) -> Result<RawTable> {
    RawTable::parse(text, Path::new("t.csv"), options)
}

/// `(line, fields)` of every row, header first.
fn rows(table: &RawTable) -> Vec<(usize, Vec<&str>)> {
    std::iter::once(&table.header)
        .chain(&table.rows)
        .map(|r| (r.line, r.fields.iter().map(String::as_str).collect()))
        .collect()
}

/// The line and problem of a table error (panics on other errors: a test failure).
fn problem(result: Result<RawTable>) -> (usize, TableProblem) {
    match result {
        Err(Error::Table {
            path,
            line,
            problem,
        }) => {
            assert_eq!(path, Path::new("t.csv"));
            (line, problem)
        }
        other => panic!("expected a table error, got {other:?}"),
    }
}

#[test]
fn tab_separated_values_csv() -> Result<()> {
    let table = parse(
        "Time [s] \tPart1.x [m] \tPart1.v [m/s]\n0\t1\t0\n0.5\t0.87758256189037\t-0.4794\n",
        &STRICT,
    )?;
    assert_eq!(table.separator, Separator::Tab);
    assert_eq!(table.path, Path::new("t.csv"));
    assert_eq!(
        rows(&table),
        [
            (1, vec!["Time [s]", "Part1.x [m]", "Part1.v [m/s]"]),
            (2, vec!["0", "1", "0"]),
            (3, vec!["0.5", "0.87758256189037", "-0.4794"]),
        ]
    );
    Ok(())
}

#[test]
fn comma_separated_with_crlf_line_ends() -> Result<()> {
    let table = parse(
        "\"time\",\"h\",\"v\"\r\n0,1,0\r\n0.01,0.9995,-0.0981",
        &STRICT,
    )?;
    assert_eq!(table.separator, Separator::Comma);
    assert_eq!(
        rows(&table),
        [
            (1, vec!["time", "h", "v"]),
            (2, vec!["0", "1", "0"]),
            (3, vec!["0.01", "0.9995", "-0.0981"]),
        ]
    );
    Ok(())
}

#[test]
fn semicolon_separated_with_decimal_commas() -> Result<()> {
    let table = parse("t [s];x [m]\n0;1,5\n1;\"2;5\"\n", &STRICT)?;
    assert_eq!(table.separator, Separator::Semicolon);
    assert_eq!(
        rows(&table),
        [
            (1, vec!["t [s]", "x [m]"]),
            (2, vec!["0", "1,5"]),
            (3, vec!["1", "2;5"])
        ]
    );
    Ok(())
}

#[test]
fn detection_tries_tab_then_comma_then_semicolon() -> Result<()> {
    let table = parse("a\tb,c\n1\t2,3\n", &STRICT)?;
    assert_eq!(table.separator, Separator::Tab);
    assert_eq!(table.header.fields, ["a", "b,c"]);
    // Two tab-separated fields in the header but one in the row: commas decide.
    let table = parse("a,b\tc\n1,2\n", &ReadOptions::default())?;
    assert_eq!(table.separator, Separator::Comma);
    assert_eq!(table.header.fields, ["a", "b\tc"]);
    Ok(())
}

#[test]
fn a_given_separator_is_used_as_is() -> Result<()> {
    let options = ReadOptions {
        separator: Some(Separator::Semicolon),
        ..ReadOptions::default()
    };
    let table = parse("a,b\n1,2\n3\n", &options)?;
    assert_eq!(table.separator, Separator::Semicolon);
    assert_eq!(
        rows(&table),
        [(1, vec!["a,b"]), (2, vec!["1,2"]), (3, vec!["3"])]
    );
    Ok(())
}

#[test]
fn one_column_tables() -> Result<()> {
    let table = parse("time [s]\n0\n1\n", &STRICT)?;
    assert_eq!(table.separator, Separator::Tab);
    assert_eq!(
        rows(&table),
        [(1, vec!["time [s]"]), (2, vec!["0"]), (3, vec!["1"])]
    );
    // One field with every separator (the comma is quoted): one column, read by the tab
    // rules, so the quotes stay.
    let table = parse("\"a,b\"\n1\n", &STRICT)?;
    assert_eq!(table.header.fields, ["\"a,b\""]);
    Ok(())
}

#[test]
fn detection_failure_names_both_lines_and_the_counts() {
    let (line, found) = problem(parse("# x\na\tb\tc\n\n1\t2\n", &STRICT));
    assert_eq!(line, 2);
    assert_eq!(
        found,
        TableProblem::Separator {
            header: [3, 1, 1],
            row_line: 4,
            row: [2, 1, 1],
        }
    );
    let message = Error::Table {
        path: "t.csv".into(),
        line,
        problem: found,
    }
    .to_string();
    assert_eq!(
        message,
        "'t.csv' line 2: cannot tell the field separator: the header has 3 tab-, 1 comma- and \
         1 semicolon-separated fields, line 4 has 2, 1 and 1; expected both lines to have the \
         same number (at least 2) of fields with one of these separators"
    );
    // One field in the header but two in the row is not a one-column table.
    let (_, found) = problem(parse("time\n0,1\n", &STRICT));
    assert!(matches!(
        found,
        TableProblem::Separator {
            header: [1, 1, 1],
            row: [1, 2, 1],
            ..
        }
    ));
}

#[test]
fn a_byte_order_mark_is_skipped() -> Result<()> {
    let table = parse("\u{feff}a,b\n1,2\n", &STRICT)?;
    assert_eq!(table.header.fields, ["a", "b"]);
    Ok(())
}

#[test]
fn comments_and_blank_lines_are_skipped_but_counted() -> Result<()> {
    let text =
        "# written by hand\n\n   # indented comment\n a [s] \t b \n\t \n#x\t1\n1\t2\r\n \r\n3\t4";
    let table = parse(text, &STRICT)?;
    assert_eq!(
        rows(&table),
        [
            (4, vec!["a [s]", "b"]),
            (7, vec!["1", "2"]),
            (9, vec!["3", "4"])
        ]
    );
    // `#` after the first field is text.
    let table = parse("a,b\n1,#2\n", &STRICT)?;
    assert_eq!(table.rows[0].fields, ["1", "#2"]);
    Ok(())
}

#[test]
fn line_numbers_after_crlf_and_skipped_lines() -> Result<()> {
    let table = parse("a,b\r\n\r\n\r\n1,2\r\n# c\r\n3,4\r\n5,6\r\n", &STRICT)?;
    let lines: Vec<usize> = table.rows.iter().map(|r| r.line).collect();
    assert_eq!(lines, [4, 6, 7]);
    Ok(())
}

#[test]
fn quoted_fields_hold_separators_and_doubled_quotes() -> Result<()> {
    let table = parse(
        "\"name, full\",\"say \"\"hi\"\"\",plain\n\"a, b\" ,\"\"\"\",3\r\n",
        &STRICT,
    )?;
    assert_eq!(
        rows(&table),
        [
            (1, vec!["name, full", "say \"hi\"", "plain"]),
            (2, vec!["a, b", "\"", "3"]),
        ]
    );
    // A quote that does not start a field is an ordinary character, also after blanks, and
    // text after a closing quote is appended.
    let table = parse("x \"y\", \"z\",\"u\"v\n1,2,3\n", &STRICT)?;
    assert_eq!(table.header.fields, ["x \"y\"", "\"z\"", "uv"]);
    Ok(())
}

#[test]
fn quotes_are_ordinary_characters_with_tabs() -> Result<()> {
    let table = parse("a\t\"b\"\n0\t\"1\n2\tx \"y\"\n3\t4\n", &STRICT)?;
    assert_eq!(table.separator, Separator::Tab);
    assert_eq!(
        rows(&table),
        [
            (1, vec!["a", "\"b\""]),
            (2, vec!["0", "\"1"]),
            (3, vec!["2", "x \"y\""]),
            (4, vec!["3", "4"]),
        ]
    );
    Ok(())
}

#[test]
fn an_unclosed_quote_is_an_error_at_its_line() {
    let (line, found) = problem(parse("a,b\n0,1\n0,\"1\n2,3\n4,5\n", &STRICT));
    assert_eq!((line, found), (3, TableProblem::UnclosedQuote));
    // On the last line, without a line end.
    let (line, found) = problem(parse("a,b\n0,\"1", &STRICT));
    assert_eq!((line, found), (2, TableProblem::UnclosedQuote));
    // In the header, and with a semicolon.
    let options = ReadOptions {
        separator: Some(Separator::Semicolon),
        ..STRICT
    };
    let (line, found) = problem(parse("\"a;b\n1;2\n", &options));
    assert_eq!((line, found), (1, TableProblem::UnclosedQuote));
    // A quote closed on a later line is not closed on its own.
    let (line, found) = problem(parse("a,b\n# c\n0,\"1\n2\",3\n", &STRICT));
    assert_eq!((line, found), (3, TableProblem::UnclosedQuote));
    let message = parse("a,b\n0,\"1\n", &STRICT)
        .expect_err("unclosed quote")
        .to_string();
    assert!(
        message.starts_with("'t.csv' line 2: a quoted field is not closed on this line"),
        "{message}"
    );
}

#[test]
fn field_counts_are_checked_on_request() -> Result<()> {
    let text = "a,b\n1,2\n\n3\n4,5,6\n";
    let (line, found) = problem(parse(text, &STRICT));
    assert_eq!(
        (line, found),
        (
            4,
            TableProblem::FieldCount {
                found: 1,
                expected: 2
            }
        )
    );
    let message = parse(text, &STRICT).expect_err("short row").to_string();
    assert_eq!(
        message,
        "'t.csv' line 4: 1 fields, but the header has 2; expected one field per column"
    );
    // The first problem in file order is reported.
    let (line, found) = problem(parse("a,b\n1,2\n3\n4,\"5\n", &STRICT));
    assert!(
        matches!(found, TableProblem::FieldCount { .. }),
        "{found:?}"
    );
    assert_eq!(line, 3);
    let table = parse(text, &ReadOptions::default())?;
    assert_eq!(
        rows(&table),
        [
            (1, vec!["a", "b"]),
            (2, vec!["1", "2"]),
            (4, vec!["3"]),
            (5, vec!["4", "5", "6"]),
        ]
    );
    Ok(())
}

#[test]
fn empty_fields_are_kept_or_dropped() -> Result<()> {
    let table = parse("a,,b\n1,,2\n3, ,\n", &STRICT)?;
    assert_eq!(
        rows(&table),
        [
            (1, vec!["a", "", "b"]),
            (2, vec!["1", "", "2"]),
            (3, vec!["3", "", ""])
        ]
    );
    // MasterSim's tables: runs of tabs act as one separator.
    let drop = ReadOptions {
        drop_empty_fields: true,
        ..STRICT
    };
    let table = parse("time [s]\t\tT [C]\t\n0\t\t\t1\n\t1\t 2 \n", &drop)?;
    assert_eq!(table.separator, Separator::Tab);
    assert_eq!(
        rows(&table),
        [
            (1, vec!["time [s]", "T [C]"]),
            (2, vec!["0", "1"]),
            (3, vec!["1", "2"])
        ]
    );
    Ok(())
}

#[test]
fn missing_header_or_data_rows() {
    assert_eq!(problem(parse("", &STRICT)), (1, TableProblem::NoHeader));
    assert_eq!(
        problem(parse("\u{feff}# only a comment\n\n", &STRICT)),
        (3, TableProblem::NoHeader)
    );
    assert_eq!(
        problem(parse("\n\ta\tb\n# c\n", &STRICT)),
        (4, TableProblem::NoData { header_line: 2 })
    );
    let given = ReadOptions {
        separator: Some(Separator::Comma),
        ..STRICT
    };
    assert_eq!(problem(parse("\n", &given)), (2, TableProblem::NoHeader));
    assert_eq!(
        problem(parse("a,b", &given)),
        (2, TableProblem::NoData { header_line: 1 })
    );
    let message = parse("a\tb\n", &STRICT).expect_err("no data").to_string();
    assert_eq!(
        message,
        "'t.csv' line 2: no data rows, expected at least one data row after the header of line 1"
    );
    let drop = ReadOptions {
        drop_empty_fields: true,
        ..given
    };
    assert_eq!(
        problem(parse(" , ,\n1,2\n", &drop)),
        (1, TableProblem::EmptyHeader)
    );
}

#[test]
fn files_are_read_with_invalid_utf8_replaced() -> Result<()> {
    let dir = tempfile::tempdir().map_err(|source| Error::Create {
        path: "temporary directory".into(),
        source,
    })?;
    let path = dir.path().join("latin1.tsv");
    std::fs::write(&path, b"time [s]\tT\xb0 [C]\n0\t20\n").map_err(|source| Error::Write {
        path: path.clone(),
        source,
    })?;
    let table = RawTable::read(&path, &STRICT)?;
    assert_eq!(table.path, path);
    assert_eq!(table.header.fields, ["time [s]", "T\u{fffd} [C]"]);
    assert_eq!(table.rows[0].fields, ["0", "20"]);

    let missing = dir.path().join("missing.csv");
    match RawTable::read(&missing, &STRICT) {
        Err(Error::Read { path, source }) => {
            assert_eq!(path, missing);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected a read error, got {other:?}"),
    }
    Ok(())
}

#[test]
fn comma_separated_rows_read_back() -> Result<()> {
    let rows = [
        vec!["case", "Prey.alpha", "message"],
        vec!["0", "1.1", "a, b"],
        vec!["1", "10 s", "say \"hi\""],
        vec!["2", "", ""],
    ];
    let text = to_comma_separated(rows.iter().map(|r| r.iter()));
    assert_eq!(
        text,
        "case,Prey.alpha,message\n0,1.1,\"a, b\"\n1,10 s,\"say \"\"hi\"\"\"\n2,,\n"
    );
    let table = parse(&text, &STRICT)?;
    assert_eq!(table.header.fields, rows[0]);
    for (row, expected) in table.rows.iter().zip(&rows[1..]) {
        assert_eq!(row.fields, *expected);
    }
    Ok(())
}
