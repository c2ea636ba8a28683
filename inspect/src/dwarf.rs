//! DWARF of the emitted object: type sizes and layouts, by qualified name.
//!
//! The object is relocatable, so references between DWARF sections are relocations that
//! must be applied while reading (`object`'s `RelocationMap` with gimli's `RelocateReader`).
//! Names are qualified through their enclosing namespaces, as rustc writes them:
//! `workloads::shared::runtime::chain3::{async_fn_env#0}`,
//! `workloads::shared::classic::chain3::Chain3StateMachine<..>`.

use std::borrow::Cow;
use std::collections::HashMap;

use gimli::{AttributeValue, EndianSlice, Reader as _, RelocateReader, RunTimeEndian};
use object::{Object, ObjectSection};

use crate::error::{Context, Error, Result};

/// What the DWARF says about one type.
#[derive(Debug, Clone, Default)]
pub struct TypeInfo {
    pub size: u64,
    /// Struct members: (name, byte offset).
    pub members: Vec<(String, u64)>,
    /// Enumerators of a C-like enum: (name, value).
    pub enumerators: Vec<(String, u64)>,
}

/// Every named struct, union and enum type of the object, by qualified name. Where one name
/// has several DIEs (one per compile unit), they describe the same type.
#[derive(Debug, Default)]
pub struct Types(HashMap<String, TypeInfo>);

impl Types {
    pub fn get(&self, name: &str) -> Option<&TypeInfo> {
        self.0.get(name)
    }

    /// Types whose qualified name is `path` or `path<...>` (the instances of a generic type).
    pub fn instances<'a>(&'a self, path: &'a str) -> impl Iterator<Item = (&'a str, &'a TypeInfo)> + 'a {
        self.0.iter().filter_map(move |(name, info)| {
            let rest = name.strip_prefix(path)?;
            (rest.is_empty() || rest.starts_with('<')).then_some((name.as_str(), info))
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &TypeInfo)> {
        self.0.iter().map(|(name, info)| (name.as_str(), info))
    }
}

#[derive(Debug, Clone, Copy)]
struct Relocations<'a>(&'a object::read::RelocationMap);

impl gimli::read::Relocate<usize> for Relocations<'_> {
    fn relocate_address(&self, offset: usize, value: u64) -> gimli::Result<u64> {
        Ok(self.0.relocate(offset as u64, value))
    }

    fn relocate_offset(&self, offset: usize, value: usize) -> gimli::Result<usize> {
        <usize as gimli::ReaderOffset>::from_u64(self.0.relocate(offset as u64, value as u64))
    }
}

type Reader<'a> = RelocateReader<EndianSlice<'a, RunTimeEndian>, Relocations<'a>>;

/// Read every named type's size (and members or enumerators) from `file`'s DWARF.
pub fn read_types(file: &object::File<'_>) -> Result<Types> {
    let endian = if file.is_little_endian() { RunTimeEndian::Little } else { RunTimeEndian::Big };
    let sections = gimli::DwarfSections::load(|id| -> Result<(Cow<'_, [u8]>, object::read::RelocationMap)> {
        match file.section_by_name(id.name()) {
            Some(section) => Ok((
                section.uncompressed_data().context(|| format!("reading {}", id.name()))?,
                relocation_map(file, &section),
            )),
            None => Ok((Cow::Borrowed(&[][..]), object::read::RelocationMap::default())),
        }
    })?;
    let dwarf = sections
        .borrow(|(data, relocations)| RelocateReader::new(EndianSlice::new(data, endian), Relocations(relocations)));
    let dwarf_error = |error: gimli::Error| Error::new(format!("reading DWARF: {error}"));

    let mut types = Types::default();
    let mut units = dwarf.units();
    while let Some(header) = units.next().map_err(dwarf_error)? {
        let unit = dwarf.unit(header).map_err(dwarf_error)?;
        read_unit(&dwarf, &unit, &mut types).map_err(dwarf_error)?;
    }
    // No types is not a build without debug info (inspect builds with -C debuginfo=2): an
    // object with no code (nothing annotated, nothing instantiated) has no DWARF at all.
    Ok(types)
}

/// The relocations of a DWARF section that matter for reading it. Others (such as the
/// TLS offsets in the location of a `thread_local!`) are left out: no fact read here
/// depends on them.
fn relocation_map(file: &object::File<'_>, section: &object::Section<'_, '_>) -> object::read::RelocationMap {
    let mut map = object::read::RelocationMap::default();
    for (offset, relocation) in section.relocations() {
        let _ = map.add(file, offset, relocation);
    }
    map
}

fn read_unit(dwarf: &gimli::Dwarf<Reader<'_>>, unit: &gimli::Unit<Reader<'_>>, types: &mut Types) -> gimli::Result<()> {
    // The qualified path at each depth: namespaces and types (whose members and
    // enumerators are their children).
    let mut path: Vec<(isize, String)> = Vec::new();
    // The type whose children are being read: (depth, qualified name).
    let mut open: Option<(isize, String)> = None;
    let mut entries = unit.entries();
    while let Some(entry) = entries.next_dfs()? {
        let depth = entry.depth();
        while path.last().is_some_and(|(at, _)| *at >= depth) {
            path.pop();
        }
        if open.as_ref().is_some_and(|(at, _)| *at >= depth) {
            open = None;
        }
        let name = match entry.attr_value(gimli::DW_AT_name) {
            Some(value) => Some(dwarf.attr_string(unit, value)?.to_string_lossy()?.into_owned()),
            None => None,
        };
        match entry.tag() {
            gimli::DW_TAG_namespace => {
                if let Some(name) = name {
                    path.push((depth, name));
                }
            }
            gimli::DW_TAG_structure_type | gimli::DW_TAG_union_type | gimli::DW_TAG_enumeration_type => {
                let (Some(name), Some(size)) =
                    (name, entry.attr_value(gimli::DW_AT_byte_size).and_then(|v| v.udata_value()))
                else {
                    continue;
                };
                let qualified = qualify(&path, &name);
                types.0.entry(qualified.clone()).or_insert_with(|| TypeInfo { size, ..TypeInfo::default() });
                path.push((depth, name));
                open = Some((depth, qualified));
            }
            gimli::DW_TAG_member => {
                let (Some((_, owner)), Some(name)) = (&open, name) else {
                    continue;
                };
                let offset = match entry.attr_value(gimli::DW_AT_data_member_location) {
                    Some(AttributeValue::Udata(offset)) => offset,
                    Some(other) => other.udata_value().unwrap_or(0),
                    None => 0,
                };
                if let Some(info) = types.0.get_mut(owner)
                    && !info.members.iter().any(|(known, _)| *known == name)
                {
                    info.members.push((name, offset));
                }
            }
            gimli::DW_TAG_enumerator => {
                let (Some((_, owner)), Some(name)) = (&open, name) else {
                    continue;
                };
                let value = match entry.attr_value(gimli::DW_AT_const_value) {
                    Some(AttributeValue::Sdata(value)) => value as u64,
                    Some(other) => other.udata_value().unwrap_or(0),
                    None => continue,
                };
                if let Some(info) = types.0.get_mut(owner)
                    && !info.enumerators.iter().any(|(known, _)| *known == name)
                {
                    info.enumerators.push((name, value));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn qualify(path: &[(isize, String)], name: &str) -> String {
    let mut qualified = String::new();
    for (_, segment) in path {
        qualified.push_str(segment);
        qualified.push_str("::");
    }
    qualified.push_str(name);
    qualified
}
