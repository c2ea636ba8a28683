//! Object symbols (I5, I6): native code bytes per symbol in the emitted object and in the
//! rlib's object members, and the `.text` totals.
//!
//! A symbol's size is what the object's symbol table says (`nm -S` agrees). `.text` bytes
//! are the sizes of the code sections; the rlib file also holds metadata, so its file size
//! is not code size.

use object::read::archive::ArchiveFile;
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};
use serde::{Deserialize, Serialize};

use crate::error::{Context, Result};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Symbol {
    /// Demangled name (v0, without crate hashes).
    pub name: String,
    pub bytes: u64,
    /// Whether it is code (in a `.text` section); otherwise data (constants, records).
    pub code: bool,
}

/// What one object file holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ObjectFacts {
    pub symbols: Vec<Symbol>,
    pub text_bytes: u64,
}

pub fn read_object(file: &object::File<'_>) -> ObjectFacts {
    let mut facts = ObjectFacts::default();
    for section in file.sections() {
        if section.kind() == SectionKind::Text {
            facts.text_bytes += section.size();
        }
    }
    for symbol in file.symbols() {
        if symbol.size() == 0 || !matches!(symbol.kind(), SymbolKind::Text | SymbolKind::Data) {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        let code = symbol
            .section_index()
            .and_then(|index| file.section_by_index(index).ok())
            .is_some_and(|section| section.kind() == SectionKind::Text);
        facts.symbols.push(Symbol {
            name: format!("{:#}", rustc_demangle::demangle(name)),
            bytes: symbol.size(),
            code,
        });
    }
    facts
}

/// The rlib's object members, read as one (rustc's `lib.rmeta` member is skipped).
pub fn read_rlib(data: &[u8]) -> Result<ObjectFacts> {
    let archive = ArchiveFile::parse(data).context(|| "reading the rlib as an archive")?;
    let mut facts = ObjectFacts::default();
    for member in archive.members() {
        let member = member.context(|| "reading an rlib member")?;
        let name = String::from_utf8_lossy(member.name()).into_owned();
        if !name.ends_with(".o") {
            continue;
        }
        let bytes = member.data(data).context(|| format!("reading rlib member {name}"))?;
        let file = object::File::parse(bytes).context(|| format!("parsing rlib member {name}"))?;
        let member_facts = read_object(&file);
        facts.text_bytes += member_facts.text_bytes;
        facts.symbols.extend(member_facts.symbols);
    }
    Ok(facts)
}
