//! The crate to work on: a path (a package, or a member of a workspace) or `NAME@VERSION`
//! fetched from crates.io through cargo (a throwaway package depending on `NAME = "=VERSION"`,
//! whose `cargo metadata` downloads it into cargo's registry). Either way the package's
//! workspace is copied under the work directory, and only the copy is changed: the lowering
//! crate added as a dependency, and a `[workspace]` table so that it is its own workspace.

use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, MetadataCommand, Package, TargetKind};

use super::manifest;
use crate::error::{Context, Error, Result};

/// The `lowering` package the copy depends on: `given` (`--lowering DIR`), else this
/// checkout's `runtime/`; checked to be that package, canonical.
pub fn lowering_dir(given: Option<&Path>) -> Result<PathBuf> {
    let dir = given.map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("runtime"), Path::to_owned);
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|error| Error::new(format!("{}: not the lab's runtime/ directory ({error})", dir.display())))?;
    let names_lowering = text.lines().any(|line| line.replace(' ', "") == "name=\"lowering\"");
    if !names_lowering {
        return Err(Error::new(format!("{} is not the manifest of the `lowering` package", manifest.display())));
    }
    dir.canonicalize().context(|| format!("resolving {}", dir.display()))
}

/// Where the original package is: its workspace root and the package's manifest.
pub struct Original {
    pub name: String,
    pub version: String,
    pub edition: String,
    pub workspace_root: PathBuf,
    pub manifest: PathBuf,
    /// Whether the original had a `Cargo.lock` at its workspace root.
    pub has_lock: bool,
}

pub fn resolve(source: &str, work: &Path) -> Result<Original> {
    let path = Path::new(source);
    if let Some((name, version)) = source.split_once('@').filter(|_| !path.exists()) {
        return fetch(name, version, work);
    }
    let manifest = if path.is_dir() { path.join("Cargo.toml") } else { path.to_owned() };
    if !manifest.is_file() {
        return Err(Error::new(format!(
            "{source}: no such crate (give a directory holding a Cargo.toml, a Cargo.toml, or NAME@VERSION)"
        )));
    }
    let manifest = manifest.canonicalize().context(|| format!("resolving {}", manifest.display()))?;
    let metadata = metadata(&manifest, true)?;
    let package =
        metadata.packages.iter().find(|package| package.manifest_path.as_std_path() == manifest).context(|| {
            format!("{} is a virtual workspace: give the path of one of its members", manifest.display())
        })?;
    Ok(original(package, &metadata))
}

fn metadata(manifest: &Path, no_deps: bool) -> Result<Metadata> {
    let mut command = MetadataCommand::new();
    command.manifest_path(manifest);
    if no_deps {
        command.no_deps();
    }
    command.exec().context(|| format!("reading the package at {}", manifest.display()))
}

fn original(package: &Package, metadata: &Metadata) -> Original {
    let workspace_root = metadata.workspace_root.clone().into_std_path_buf();
    Original {
        name: package.name.to_string(),
        version: package.version.to_string(),
        edition: package.edition.to_string(),
        has_lock: workspace_root.join("Cargo.lock").is_file(),
        workspace_root,
        manifest: package.manifest_path.clone().into_std_path_buf(),
    }
}

/// Download `name` at exactly `version` into cargo's registry, and find it there.
fn fetch(name: &str, version: &str, work: &Path) -> Result<Original> {
    let valid = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c));
    if !valid(name) || !valid(version) {
        return Err(Error::new(format!(
            "{name}@{version}: not a crate name and version (NAME@VERSION, e.g. triggered@0.1.3)"
        )));
    }
    let dir = work.join("fetch").join(format!("{name}-{version}"));
    std::fs::create_dir_all(dir.join("src")).context(|| format!("creating {}", dir.display()))?;
    let manifest = dir.join("Cargo.toml");
    let text = format!(
        "# Written by `inspect crate` to download {name} {version}.\n[package]\nname = \"lowering-fetch\"\n\
         version = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{name} = \"={version}\"\n\n[workspace]\n"
    );
    std::fs::write(&manifest, text).context(|| format!("writing {}", manifest.display()))?;
    std::fs::write(dir.join("src/lib.rs"), "").context(|| "writing the fetching package's lib.rs")?;
    eprintln!("crate: fetching {name} {version} through cargo");
    let metadata = metadata(&manifest, false).map_err(|error| {
        Error::new(format!("{name}@{version} could not be fetched from crates.io (is it published?): {error}"))
    })?;
    let package = metadata
        .packages
        .iter()
        .find(|package| package.name.as_str() == name && package.version.to_string() == version)
        .context(|| format!("cargo fetched no package {name} {version}"))?;
    let root = package.manifest_path.parent().context(|| "the fetched package's directory")?;
    Ok(Original {
        name: name.to_owned(),
        version: version.to_owned(),
        edition: package.edition.to_string(),
        has_lock: root.join("Cargo.lock").is_file(),
        workspace_root: root.to_owned().into_std_path_buf(),
        manifest: package.manifest_path.clone().into_std_path_buf(),
    })
}

/// The copy, and what the builds need to know of it.
pub struct Copy {
    /// The copy's workspace root, and the unchanged copy of it the annotations start from.
    pub root: PathBuf,
    pub pristine: PathBuf,
    pub manifest: PathBuf,
    pub package_dir: PathBuf,
    /// Library and binary roots, with the path prefix of their functions.
    pub roots: Vec<super::functions::Root>,
    pub has_lib: bool,
}

/// Copy the original's workspace (without `target/` and `.git/`) to `<work>/NAME/copy`, and a
/// second, never changed, to `<work>/NAME/pristine`; then change the copy's manifests (the
/// `lowering` package at `runtime` added).
pub fn copy(original: &Original, work: &Path, runtime: &Path) -> Result<Copy> {
    let base = work.join(&original.name);
    let (root, pristine) = (base.join("copy"), base.join("pristine"));
    for dir in [&root, &pristine] {
        if dir.exists() {
            std::fs::remove_dir_all(dir).context(|| format!("removing the previous {}", dir.display()))?;
        }
        copy_tree(&original.workspace_root, dir)?;
    }
    let relative =
        original.manifest.strip_prefix(&original.workspace_root).context(|| "the package's manifest path")?;
    let manifest = root.join(relative);
    let package_dir = manifest.parent().context(|| "the copy's package directory")?.to_owned();
    let text = std::fs::read_to_string(&manifest).context(|| format!("reading {}", manifest.display()))?;
    let mut text = manifest::with_dependency(&text, runtime);
    if relative == Path::new("Cargo.toml") && !manifest::has_table(&text, "workspace") {
        text.push_str("\n# Added by `inspect crate`: the copy is its own workspace.\n[workspace]\n");
    }
    std::fs::write(&manifest, text).context(|| format!("writing {}", manifest.display()))?;
    let lock = work.join("locks").join(format!("{}-{}.lock", original.name, original.version));
    if !original.has_lock && lock.is_file() {
        std::fs::copy(&lock, root.join("Cargo.lock")).context(|| "reusing the generated Cargo.lock")?;
    }
    let metadata = metadata(&manifest, true)?;
    let package = metadata
        .packages
        .iter()
        .find(|package| package.manifest_path.as_std_path() == manifest)
        .context(|| "the copy's package is not in its own metadata")?;
    let mut roots = Vec::new();
    let mut has_lib = false;
    for target in &package.targets {
        let lib = target.kind.iter().any(|kind| matches!(kind, TargetKind::Lib | TargetKind::RLib));
        let bin = target.kind.contains(&TargetKind::Bin);
        if lib || bin {
            // The pristine file, so that the offsets are those of the original text.
            let file = target.src_path.as_std_path().strip_prefix(&root).map(|rel| pristine.join(rel));
            let file = file.context(|| format!("target {} outside the copy", target.name))?;
            let prefix = if lib { String::new() } else { format!("bin:{}::", target.name) };
            roots.push(super::functions::Root { file, prefix });
            has_lib |= lib;
        }
    }
    Ok(Copy { root, pristine, manifest, package_dir, roots, has_lib })
}

/// Keep the lockfile cargo generated for a crate published without one, for the next run.
pub fn keep_lock(original: &Original, copy: &Copy, work: &Path) -> Result<()> {
    let (generated, lock) = (copy.root.join("Cargo.lock"), work.join("locks"));
    if original.has_lock || !generated.is_file() {
        return Ok(());
    }
    std::fs::create_dir_all(&lock).context(|| format!("creating {}", lock.display()))?;
    let kept = lock.join(format!("{}-{}.lock", original.name, original.version));
    std::fs::copy(&generated, &kept).map(|_| ()).context(|| format!("keeping {}", kept.display()))
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).context(|| format!("reading {}", from.display()))? {
        let entry = entry.context(|| format!("reading {}", from.display()))?;
        let name = entry.file_name();
        let kind = entry.file_type().context(|| format!("reading {}", entry.path().display()))?;
        if kind.is_dir() {
            if name != "target" && name != ".git" {
                copy_tree(&entry.path(), &to.join(&name))?;
            }
        } else if kind.is_file() || kind.is_symlink() {
            std::fs::copy(entry.path(), to.join(&name)).context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
