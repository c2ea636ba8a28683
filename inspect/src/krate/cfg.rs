//! Which `#[cfg(..)]` predicates hold for the build `inspect crate` makes: rustc's own cfg for
//! the host (`rustc --print cfg`) plus the package's enabled features. `test`, `doc` and any
//! cfg rustc does not set (`docsrs`, `tokio_unstable`) are false, as in a default build.

use std::collections::BTreeSet;
use std::process::Command;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::error::{Context, Error, Result};

/// The set cfg options: `name` or `name="value"` as rustc prints them.
#[derive(Debug, Clone, Default)]
pub struct Cfg {
    set: BTreeSet<(String, Option<String>)>,
}

impl Cfg {
    /// rustc's cfg for the host, with `features` enabled.
    pub fn host(features: &[String]) -> Result<Cfg> {
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let output = Command::new(rustc).args(["--print", "cfg"]).output().context(|| "running rustc --print cfg")?;
        if !output.status.success() {
            return Err(Error::new(format!(
                "rustc --print cfg failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        let mut cfg = Cfg::from_print(&String::from_utf8_lossy(&output.stdout));
        // A dev build (cargo build/test) has debug assertions on.
        cfg.set.insert(("debug_assertions".to_owned(), None));
        for feature in features {
            cfg.set.insert(("feature".to_owned(), Some(feature.clone())));
        }
        Ok(cfg)
    }

    /// `name` and `name="value"` lines, as `rustc --print cfg` writes them.
    pub fn from_print(text: &str) -> Cfg {
        let set = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .map(|line| match line.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.trim_matches('"').to_owned())),
                None => (line.to_owned(), None),
            })
            .collect();
        Cfg { set }
    }

    /// Whether the predicate inside `cfg(..)` holds; a predicate it cannot read holds, so that
    /// a function is offered to the build rather than silently left out.
    pub fn holds(&self, predicate: &TokenStream) -> bool {
        let tokens: Vec<TokenTree> = predicate.clone().into_iter().collect();
        self.eval(&tokens).unwrap_or(true)
    }

    fn eval(&self, tokens: &[TokenTree]) -> Option<bool> {
        match tokens {
            [TokenTree::Ident(name)] => Some(self.set.contains(&(name.to_string(), None))),
            [TokenTree::Ident(name), TokenTree::Punct(eq), TokenTree::Literal(value)] if eq.as_char() == '=' => {
                let value = value.to_string();
                let value = value.strip_prefix('"')?.strip_suffix('"')?;
                Some(self.set.contains(&(name.to_string(), Some(value.to_owned()))))
            }
            [TokenTree::Ident(op), TokenTree::Group(group)] if group.delimiter() == Delimiter::Parenthesis => {
                let args: Vec<TokenTree> = group.stream().into_iter().collect();
                let args: Vec<&[TokenTree]> = args
                    .split(|token| matches!(token, TokenTree::Punct(p) if p.as_char() == ','))
                    .filter(|arg| !arg.is_empty())
                    .collect();
                let values = args.into_iter().map(|arg| self.eval(arg)).collect::<Option<Vec<bool>>>()?;
                match op.to_string().as_str() {
                    "all" => Some(values.iter().all(|v| *v)),
                    "any" => Some(values.iter().any(|v| *v)),
                    "not" if values.len() == 1 => Some(!values[0]),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(cfg: &Cfg, predicate: &str) -> bool {
        cfg.holds(&predicate.parse().unwrap())
    }

    #[test]
    fn predicates_evaluate_against_the_set_options() {
        let mut cfg = Cfg::from_print("unix\ntarget_os=\"linux\"\npanic=\"unwind\"\n");
        cfg.set.insert(("feature".to_owned(), Some("tls".to_owned())));
        assert!(holds(&cfg, "unix"));
        assert!(!holds(&cfg, "test"));
        assert!(!holds(&cfg, "windows"));
        assert!(holds(&cfg, "target_os = \"linux\""));
        assert!(!holds(&cfg, "target_os = \"macos\""));
        assert!(holds(&cfg, "feature = \"tls\""));
        assert!(!holds(&cfg, "feature = \"gzip\""));
        assert!(holds(&cfg, "all(unix, not(test), feature = \"tls\")"));
        assert!(!holds(&cfg, "all(unix, test)"));
        assert!(holds(&cfg, "any(windows, unix)"));
        assert!(!holds(&cfg, "any()"));
        assert!(holds(&cfg, "all()"));
        assert!(!holds(&cfg, "not(all(unix, feature = \"tls\"))"));
    }

    #[test]
    fn an_unreadable_predicate_holds() {
        let cfg = Cfg::default();
        assert!(holds(&cfg, "weird(1 + 2)"));
        assert!(holds(&cfg, "not(a, b)"));
    }
}
