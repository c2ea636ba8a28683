//! Which functions build classic, and with which hints. Every function classic together
//! first; a function rustc's errors fall in is either given the hints its errors call for
//! (`hints`: E0507 on a local or a field of one, E0382 by a method call, E0597) and kept in, or set aside until the rest builds. Each
//! set-aside function is then tried alone (the rest runtime), with hints again, and the
//! accepted set is built together (a function failing only in company is refused with that
//! error, unless new hints help there too).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use super::Run;
use super::cargo::{Built, CompileError};
use super::hints::Hint;
use super::results::{Refusal, Verdict};
use crate::error::{Context, Result};

/// The verdicts, the test binaries of the accepted set classic (`None` when no function is
/// accepted), and the number of builds.
pub type Search = (Vec<Verdict>, Option<Vec<(String, PathBuf)>>, usize);

impl Run<'_> {
    pub(super) fn classic(&mut self, everyone: &BTreeSet<usize>) -> Result<Search> {
        let mut refused: BTreeMap<usize, Refusal> = BTreeMap::new();
        if everyone.is_empty() {
            return Ok((Vec::new(), None, 0));
        }
        let mut builds = 0;
        // Hinted where the errors call for it, else set aside, until the rest builds together.
        let mut together = everyone.clone();
        let mut set_aside = BTreeSet::new();
        let mut binaries = loop {
            builds += 1;
            let what = if set_aside.is_empty() {
                "classic".to_owned()
            } else {
                format!("classic, {} set aside", set_aside.len())
            };
            match self.build(Some(&together), &what)? {
                Built::Ok(binaries) => break binaries,
                failed => {
                    let named = self.named(&failed, &together);
                    if named.is_empty() {
                        // Errors outside every function: any of them may be the cause.
                        set_aside.append(&mut together);
                        continue;
                    }
                    for (i, errors) in named {
                        if !self.learn(i, &errors) {
                            together.remove(&i);
                            set_aside.insert(i);
                        }
                    }
                }
            }
        };
        // Each set-aside function alone, the rest runtime, hinted while new hints help.
        for &i in &set_aside {
            loop {
                builds += 1;
                let alone = BTreeSet::from([i]);
                let what = format!("{} alone", self.functions[i].path);
                match self.build(Some(&alone), &what)? {
                    Built::Ok(_) => {
                        together.insert(i);
                        break;
                    }
                    failed => {
                        // Alone, every error is this function's: one rustc reports in a macro's
                        // definition elsewhere (an `.await` its body writes) too.
                        let errors = self.named(&failed, &alone).remove(&i).unwrap_or_else(|| match &failed {
                            Built::Failed { errors, .. } => errors.clone(),
                            _ => Vec::new(),
                        });
                        if self.learn(i, &errors) {
                            continue;
                        }
                        let error = errors.into_iter().next().unwrap_or_else(|| first_error(&failed, self.timeout()));
                        eprintln!("crate:   refused {}: {} {}", self.functions[i].path, error.code, error.message);
                        refused.insert(i, self.refusal(i, error, false));
                        break;
                    }
                }
            }
        }
        // The accepted set together: a function failing only in company is refused.
        if !set_aside.is_empty() {
            binaries = loop {
                builds += 1;
                match self.build(Some(&together), "accepted together")? {
                    Built::Ok(binaries) => break binaries,
                    failed => {
                        let mut named = self.named(&failed, &together);
                        if named.is_empty() {
                            // Nothing to blame: the last one added goes, until the rest builds.
                            let last = *together
                                .iter()
                                .rfind(|i| set_aside.contains(i))
                                .context(|| "the accepted set does not build, and no set-aside function is in it")?;
                            named.insert(last, vec![first_error(&failed, self.timeout())]);
                        }
                        for (i, errors) in named {
                            if self.learn(i, &errors) {
                                continue;
                            }
                            together.remove(&i);
                            let error =
                                errors.into_iter().next().unwrap_or_else(|| first_error(&failed, self.timeout()));
                            refused.insert(i, self.refusal(i, error, true));
                        }
                    }
                }
            };
        }
        let verdicts = self
            .functions
            .iter()
            .enumerate()
            .map(|(i, function)| Verdict {
                function: function.clone(),
                refused: refused.remove(&i),
                hints: self.hints.get(&i).map(|given| given.in_force()).unwrap_or_default(),
            })
            .collect();
        // With every fn refused, the last build had none classic: its tests would be the runtime
        // configuration's again, not a classic result.
        Ok((verdicts, (!together.is_empty()).then_some(binaries), builds))
    }

    /// Give function `i` the hints its `errors` call for that it never had (unless `--no-hints`):
    /// whether there was one. Its first error without hints is kept for the report.
    fn learn(&mut self, i: usize, errors: &[CompileError]) -> bool {
        if !self.options.hints {
            return false;
        }
        let given = self.hints.entry(i).or_default();
        if given.is_empty()
            && let Some(first) = errors.first()
        {
            self.unhinted_errors.entry(i).or_insert_with(|| first.clone());
        }
        let called_for: Vec<&Hint> = errors.iter().filter_map(|error| error.hint.as_ref()).collect();
        let learned = given.learn(called_for);
        if learned {
            eprintln!("crate:   hinted {}{}", self.functions[i].path, given.attribute_args());
        }
        learned
    }

    /// Function `i` refused with `error`; with the error it had before hints, if it had any.
    fn refusal(&self, i: usize, error: CompileError, in_company: bool) -> Refusal {
        let hinted = self.hints.get(&i).is_some_and(|given| !given.is_empty());
        let before_hints = self.unhinted_errors.get(&i).filter(|first| hinted && **first != error).cloned();
        Refusal { error, in_company, before_hints }
    }

    fn timeout(&self) -> Duration {
        self.options.build_timeout
    }

    /// The functions of `among` the build's errors fall in, each with its errors in rustc's order.
    fn named(&self, built: &Built, among: &BTreeSet<usize>) -> BTreeMap<usize, Vec<CompileError>> {
        let mut named: BTreeMap<usize, Vec<CompileError>> = BTreeMap::new();
        if let Built::Failed { errors, .. } = built {
            for error in errors {
                let within = among.iter().copied().find(|&i| self.functions[i].holds(&error.file, error.line));
                if let Some(i) = within {
                    named.entry(i).or_default().push(error.clone());
                }
            }
        }
        named
    }
}

/// A failed build's first error, or what stood for it.
pub fn first_error(built: &Built, timeout: Duration) -> CompileError {
    let other =
        |message: String| CompileError { code: "build".to_owned(), message, file: String::new(), line: 0, hint: None };
    match built {
        Built::Failed { errors, other: text } => errors.first().cloned().unwrap_or_else(|| other(text.clone())),
        Built::Timeout => other(format!("the build did not end within {timeout:?}")),
        Built::Ok(_) => other("built".to_owned()),
    }
}
