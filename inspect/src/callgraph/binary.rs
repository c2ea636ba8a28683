//! What a built executable holds: its size, and from its symbol table (`.symtab`, read with
//! the `object` crate) the number of symbols, the bytes of their names, the longest name, the
//! generated state-machine types the names mention, and the lowering records; and, by running
//! it with `records`, the records it links (which lowering each function got, read from the
//! artifact, as `inspect` reads it everywhere).
//!
//! Only the symbol table and its strings are read, not the whole file: a classic binary of the
//! deep call graph weighs a gigabyte, most of it debug info.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use object::read::elf::Sym as _;
use object::{LittleEndian, Object, ObjectSection};
use serde::{Deserialize, Serialize};

use crate::error::{Context, Error, Result};

/// The symbol-table facts of one executable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbols {
    /// Symbols with a name.
    pub count: u64,
    /// The bytes of all their names (mangled, as the symbol table holds them).
    pub name_bytes: u64,
    /// The longest name, in bytes (mangled).
    pub longest_bytes: u64,
    /// The start of the longest name, demangled (at most [`LONGEST_SHOWN`] characters).
    pub longest_start: String,
    /// Distinct generated state-machine types (`Main<k>StateMachine`) that names mention.
    pub state_machine_types: u64,
    /// Lowering records (statics named `__LOWERING_RECORD`).
    pub record_symbols: u64,
}

/// How much of the longest symbol is kept, demangled.
pub const LONGEST_SHOWN: usize = 200;

/// Read the symbol table of a 64-bit little-endian ELF executable.
pub fn symbols(path: &Path) -> Result<Symbols> {
    let file = File::open(path).context(|| format!("opening {}", path.display()))?;
    let cache = object::read::ReadCache::new(file);
    let parsed = object::File::parse(&cache).context(|| format!("parsing {}", path.display()))?;
    if parsed.format() != object::BinaryFormat::Elf || !parsed.is_64() || !parsed.is_little_endian() {
        return Err(Error::new(format!(
            "{} is not a 64-bit little-endian ELF file: its symbols are not read",
            path.display()
        )));
    }
    let range = |name: &str| {
        parsed
            .section_by_name(name)
            .and_then(|section| section.file_range())
            .context(|| format!("{} has no {name} section (stripped?)", path.display()))
    };
    let (symtab_range, strtab_range) = (range(".symtab")?, range(".strtab")?);
    drop(parsed);
    let mut file = cache.into_inner();
    let symtab = read_range(&mut file, symtab_range, path)?;
    let strtab = read_range(&mut file, strtab_range, path)?;
    let entries: &[object::elf::Sym64<LittleEndian>] = object::pod::slice_from_all_bytes(&symtab)
        .map_err(|()| Error::new(format!("the .symtab of {} is not a whole number of entries", path.display())))?;
    let strings = object::read::StringTable::new(&strtab[..], 0, strtab.len() as u64);
    let mut facts = Symbols::default();
    let mut longest: &[u8] = &[];
    let mut types = BTreeSet::new();
    for entry in entries {
        let Ok(name) = entry.name(LittleEndian, strings) else { continue };
        if name.is_empty() {
            continue;
        }
        facts.count += 1;
        facts.name_bytes += name.len() as u64;
        if name.len() > longest.len() {
            longest = name;
        }
        state_machine_types(name, &mut types);
        if contains(name, b"__LOWERING_RECORD") {
            facts.record_symbols += 1;
        }
    }
    facts.longest_bytes = longest.len() as u64;
    facts.longest_start = demangled_start(longest);
    facts.state_machine_types = types.len() as u64;
    Ok(facts)
}

fn read_range(file: &mut File, (offset, size): (u64, u64), path: &Path) -> Result<Vec<u8>> {
    let size = usize::try_from(size).context(|| format!("a section of {} is too large", path.display()))?;
    let mut bytes = vec![0; size];
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(&mut bytes))
        .context(|| format!("reading {size} bytes at {offset} of {}", path.display()))?;
    Ok(bytes)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

/// Every `Main<k>StateMachine` a symbol name mentions (as an identifier, in a legacy or v0
/// mangled name), by `k`.
fn state_machine_types(name: &[u8], types: &mut BTreeSet<u64>) {
    const SUFFIX: &[u8] = b"StateMachine";
    let mut from = 0;
    while let Some(at) = name[from..].windows(SUFFIX.len()).position(|window| window == SUFFIX) {
        let end = from + at;
        let digits = name[..end].iter().rev().take_while(|byte| byte.is_ascii_digit()).count();
        let start = end - digits;
        if digits > 0 && name[..start].ends_with(b"Main") {
            let number = std::str::from_utf8(&name[start..end]).ok().and_then(|text| text.parse::<u64>().ok());
            types.extend(number);
        }
        from = end + SUFFIX.len();
    }
}

fn demangled_start(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    let demangled = format!("{:#}", rustc_demangle::demangle(&text));
    let mut start: String = demangled.chars().take(LONGEST_SHOWN).collect();
    if start.len() < demangled.len() {
        start.push('…');
    }
    start
}

/// The records a binary links, as its `records` mode prints them (`LOWERING FUNCTION TYPE`, one
/// a line): how many functions got each lowering, and how many name a generated type.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Records {
    pub lowerings: BTreeMap<String, u64>,
    pub generated_types: u64,
}

pub fn records(executable: &Path) -> Result<Records> {
    let output = super::build::run_executable(executable, "records", Duration::from_secs(60))?;
    parse_records(&output)
}

pub fn parse_records(output: &str) -> Result<Records> {
    let mut records = Records::default();
    for line in output.lines().filter(|line| !line.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [lowering, _function, generated] = fields[..] else {
            return Err(Error::new(format!("a record line is not `LOWERING FUNCTION TYPE`: {line}")));
        };
        *records.lowerings.entry(lowering.to_owned()).or_default() += 1;
        if generated != "-" {
            records.generated_types += 1;
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_machine_types_are_counted_once_each_in_any_mangling() {
        let mut types = BTreeSet::new();
        let legacy = b"_ZN4core3ptr85drop_in_place$LT$cg_dag_4_classic..main_0..Main0StateMachine$LT$lowering..Main12StateMachine$GT$$GT$17h0E";
        state_machine_types(legacy, &mut types);
        state_machine_types(b"_RNvMNtCs1_3cg6main_0INtB2_17Main0StateMachineE8move_next", &mut types);
        state_machine_types(b"StateMachine Main StateMachine MainXStateMachine 3StateMachine", &mut types);
        assert_eq!(types.into_iter().collect::<Vec<_>>(), [0, 12]);
    }

    #[test]
    fn records_lines_are_counted_by_lowering() {
        let output = "classic main_0 Main0StateMachine\nclassic main_1 Main1StateMachine\nruntime main_2 -\n";
        let records = parse_records(output).expect("parses");
        assert_eq!(records.lowerings, BTreeMap::from([("classic".to_owned(), 2), ("runtime".to_owned(), 1)]));
        assert_eq!(records.generated_types, 2);
        assert!(parse_records("classic main_0\n").is_err());
    }

    #[test]
    fn the_longest_symbol_is_shown_demangled_and_cut() {
        assert_eq!(demangled_start(b"_ZN3foo3bar17h0123456789abcdefE"), "foo::bar");
        let long = format!("_ZN{}E", "3abc".repeat(100));
        let start = demangled_start(long.as_bytes());
        assert_eq!(start.chars().count(), LONGEST_SHOWN + 1);
        assert!(start.starts_with("abc::abc::") && start.ends_with('…'));
    }
}
