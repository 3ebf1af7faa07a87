//! A small element tree of an XML document: element names, attributes, 1-based line numbers
//! and children in document order; text, comments and processing instructions are dropped.
//!
//! FMI 3.0 lists variables as differently named sibling elements (`Float64`, `Int32`, `Clock`,
//! …) whose order matters, and readers report unknown attributes instead of refusing them. Both
//! are awkward through serde, so the FMI 3.0 reader and the SSP reader (which names the line of
//! every element it complains about) walk this tree instead. The nodes live in one `Vec` and
//! refer to their children by position, so neither building nor dropping the tree recurses,
//! however deep the document nests.
//!
//! Spec: XML 1.0 (well-formedness as quick-xml checks it); no schema is applied here.

use std::path::Path;

use quick_xml::events::{BytesStart, Event};

use crate::{Error, Result};

/// One element: its name, its attributes (unescaped and normalized), its line and its children.
#[derive(Debug)]
pub struct Node {
    /// The element name as written (with a prefix, if any).
    pub name: String,
    /// The 1-based line of the element's start tag.
    pub line: usize,
    /// `(name, value)` pairs in document order.
    attributes: Vec<(String, String)>,
    /// Positions of the child elements in [`Tree::nodes`].
    children: Vec<usize>,
}

impl Node {
    /// The element name without its namespace prefix (`ssd:System` → `System`).
    pub fn local_name(&self) -> &str {
        self.name.rsplit(':').next().unwrap_or(&self.name)
    }

    /// The value of attribute `name`, if present.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The value of attribute `name` as an owned string, if present.
    pub fn owned(&self, name: &str) -> Option<String> {
        self.get(name).map(str::to_owned)
    }

    /// All `(name, value)` attribute pairs, in document order.
    pub fn attributes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.attributes
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// The names of all attributes, in document order.
    pub fn attribute_names(&self) -> impl Iterator<Item = &str> {
        self.attributes.iter().map(|(n, _)| n.as_str())
    }
}

/// The element tree of a document; the root element is `nodes[0]`.
#[derive(Debug)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// Reads `xml` into a tree. Elements after the root element are ignored.
    ///
    /// # Errors
    /// [`Error::Xml`] (naming `path`, with the byte position) when the document is not
    /// well-formed or has no root element.
    pub fn parse(xml: &str, path: &Path) -> Result<Tree> {
        let mut reader = quick_xml::Reader::from_str(xml);
        let mut nodes: Vec<Node> = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        let mut root_closed = false;
        // Line counting: newlines in `xml[..counted]` are `line - 1`.
        let (mut counted, mut line) = (0usize, 1usize);
        loop {
            let start = reader.buffer_position() as usize;
            let event = reader.read_event().map_err(|err| Error::Xml {
                path: path.to_owned(),
                position: Some(reader.error_position()),
                message: err.to_string(),
            })?;
            match event {
                Event::Start(ref e) | Event::Empty(ref e) if !root_closed => {
                    let start = start.min(xml.len());
                    line += xml.as_bytes()[counted.min(start)..start]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count();
                    counted = counted.max(start);
                    let node = node(e, line).map_err(|message| Error::Xml {
                        path: path.to_owned(),
                        position: Some(reader.buffer_position()),
                        message,
                    })?;
                    let id = nodes.len();
                    nodes.push(node);
                    if let Some(&parent) = open.last() {
                        nodes[parent].children.push(id);
                    }
                    if matches!(event, Event::Start(_)) {
                        open.push(id);
                    } else if open.is_empty() {
                        root_closed = true;
                    }
                }
                Event::End(_) if !root_closed => {
                    open.pop();
                    root_closed = open.is_empty();
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !open.is_empty() {
            return Err(Error::Xml {
                path: path.to_owned(),
                position: Some(reader.buffer_position()),
                message: "unexpected end of file: an element is not closed".to_owned(),
            });
        }
        if nodes.is_empty() {
            return Err(Error::Xml {
                path: path.to_owned(),
                position: None,
                message: "the document has no root element".to_owned(),
            });
        }
        Ok(Tree { nodes })
    }

    /// The root element.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The child elements of `node`, in document order.
    pub fn children<'a>(&'a self, node: &'a Node) -> impl Iterator<Item = &'a Node> + 'a {
        node.children.iter().map(|&i| &self.nodes[i])
    }

    /// The child elements of `node` named `name`, in document order.
    pub fn children_named<'a>(
        &'a self,
        node: &'a Node,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Node> + 'a {
        self.children(node).filter(move |c| c.name == name)
    }

    /// The first child element of `node` named `name`.
    pub fn child<'a>(&'a self, node: &'a Node, name: &'a str) -> Option<&'a Node> {
        self.children_named(node, name).next()
    }
}

/// The node of a start or empty tag, without children yet; `Err` holds the parser's message.
fn node(e: &BytesStart<'_>, line: usize) -> std::result::Result<Node, String> {
    let name = AsRef::<str>::as_ref(&e.name()).to_owned();
    let mut attributes = Vec::new();
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|err| err.to_string())?;
        let key = AsRef::<str>::as_ref(&attribute.key).to_owned();
        let value = attribute
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| err.to_string())?
            .into_owned();
        attributes.push((key, value));
    }
    Ok(Node {
        name,
        line,
        attributes,
        children: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_attributes_and_ignores_text() {
        let xml = r#"<?xml version="1.0"?><!-- c --><r a="1 &amp; 2"><x/>text<y b="&#x41;"><z/></y><x/></r><after/>"#;
        let tree = Tree::parse(xml, Path::new("m.xml")).unwrap();
        let root = tree.root();
        assert_eq!(root.name, "r");
        assert_eq!(root.get("a"), Some("1 & 2"));
        let names: Vec<&str> = tree.children(root).map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "x"]);
        let y = tree.child(root, "y").unwrap();
        assert_eq!(y.get("b"), Some("A"));
        assert_eq!(tree.children(y).count(), 1);
        assert_eq!(tree.children_named(root, "x").count(), 2);
    }

    #[test]
    fn elements_know_their_line() {
        let xml =
            "<?xml version=\"1.0\"?>\n<ssd:r>\n  <a/>\n\n  <b\n   x='1'>text\n</b><c/></ssd:r>";
        let tree = Tree::parse(xml, Path::new("m.xml")).unwrap();
        let root = tree.root();
        assert_eq!((root.local_name(), root.line), ("r", 2));
        let lines: Vec<usize> = tree.children(root).map(|n| n.line).collect();
        assert_eq!(lines, [3, 5, 7]);
    }

    #[test]
    fn deep_nesting_neither_recurses_nor_overflows() {
        let depth = 200_000;
        let xml = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
        let tree = Tree::parse(&xml, Path::new("m.xml")).unwrap();
        assert_eq!(tree.root().name, "a");
        drop(tree);
    }

    #[test]
    fn errors_name_the_file() {
        for xml in [
            "<a><b></a>",
            "<a x='1' x='2'/>",
            "<a>",
            "",
            "<a y='&bogus;'/>",
        ] {
            let err = Tree::parse(xml, Path::new("m.xml")).err().unwrap();
            assert!(
                err.to_string().starts_with("m.xml: malformed XML"),
                "{xml}: {err}"
            );
        }
    }
}
