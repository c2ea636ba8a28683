//! Which macro a classic build's error is about, where the error says that a macro's expansion
//! awaits or returns from the function: E0728 "`await` is only allowed inside `async`
//! functions and blocks" (`awaits(m)`), or a `return` of the function's type where
//! `move_next`'s `Poll<..>` was expected (E0308, E0069: `returns(m)`). The lowering cannot see
//! an expansion; rustc's error names the macro in its expansion trace (an `.await` in the
//! macro's own body), or points into the tokens the macro was handed (an `.await` it pastes),
//! where the innermost macro invocation of the source around that place is the one.

use cargo_metadata::diagnostic::{Diagnostic, DiagnosticSpan};
use proc_macro2::LineColumn;
use syn::visit::Visit;

/// The macro an expansion error is about: `Some((name, awaits))`, `awaits` false for a return.
pub fn expansion_about(
    diagnostic: &Diagnostic,
    primary: &DiagnosticSpan,
    source: Option<&str>,
) -> Option<(String, bool)> {
    let code = diagnostic.code.as_ref()?.code.as_str();
    let awaits = match code {
        "E0728" => true,
        // The expected type is `move_next`'s, `Poll<..>`: a `return` of the function's value
        // that the expansion wrote.
        "E0308" | "E0069" => {
            let expected_poll = diagnostic.spans.iter().chain([primary]).any(|span| {
                span.label.as_deref().is_some_and(|label| label.contains("expected `Poll<") || label.contains("`Poll<"))
            });
            if !expected_poll {
                return None;
            }
            false
        }
        _ => return None,
    };
    let name = outermost_expansion(primary).or_else(|| enclosing_invocation(primary, source?))?;
    Some((name, awaits))
}

/// The outermost macro of the span's expansion trace that the user's code invokes (not the
/// lowering's attribute, nor a derive).
fn outermost_expansion(span: &DiagnosticSpan) -> Option<String> {
    let mut outermost = None;
    let mut expansion = span.expansion.as_deref();
    while let Some(at) = expansion {
        if let Some(name) = at.macro_decl_name.strip_suffix('!') {
            outermost = Some(name.rsplit("::").next().unwrap_or(name).to_owned());
        }
        expansion = at.span.expansion.as_deref();
    }
    outermost
}

/// The innermost invocation, among the source's, of a macro rustc does not define, around the
/// span's start (rustc's lines are 1-based, its columns 1-based characters).
pub(super) fn enclosing_invocation(span: &DiagnosticSpan, source: &str) -> Option<String> {
    struct Innermost {
        at: LineColumn,
        found: Option<(LineColumn, String)>,
    }
    impl<'ast> Visit<'ast> for Innermost {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            use syn::spanned::Spanned;
            let start = mac.path.span().start();
            let end = mac.delimiter.span().close().end();
            let name = mac.path.segments.last().map(|segment| segment.ident.to_string()).unwrap_or_default();
            let around = (start.line, start.column) <= (self.at.line, self.at.column)
                && (self.at.line, self.at.column) < (end.line, end.column);
            let inner =
                self.found.as_ref().is_none_or(|(known, _)| (known.line, known.column) <= (start.line, start.column));
            if around && inner && !is_rusts(&name) {
                self.found = Some((start, name));
            }
            // The tokens of a macro are no syntax tree; a macro invoked among them is found by
            // parsing them as statements, or as expressions separated by commas, where they are.
            use syn::parse::Parser;
            if let Ok(stmts) = syn::Block::parse_within.parse2(mac.tokens.clone()) {
                stmts.iter().for_each(|stmt| self.visit_stmt(stmt));
            } else if let Ok(exprs) =
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated.parse2(mac.tokens.clone())
            {
                exprs.iter().for_each(|expr| self.visit_expr(expr));
            }
        }
    }
    let file = syn::parse_file(source).ok()?;
    let at = LineColumn { line: span.line_start, column: span.column_start.saturating_sub(1) };
    let mut innermost = Innermost { at, found: None };
    innermost.visit_file(&file);
    innermost.found.map(|(_, name)| name)
}

/// Rust's own macros, which await or return only where their arguments do.
fn is_rusts(name: &str) -> bool {
    matches!(
        name,
        "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "debug_assert_ne"
            | "dbg"
            | "eprint"
            | "eprintln"
            | "format"
            | "format_args"
            | "matches"
            | "panic"
            | "print"
            | "println"
            | "todo"
            | "unimplemented"
            | "unreachable"
            | "vec"
            | "write"
            | "writeln"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(code: &str, label: &str, line: usize, column: usize, expansion: Option<&str>) -> Diagnostic {
        let expansion = expansion.map(|name| {
            serde_json::json!({
                "span": {
                    "file_name": "src/lib.rs", "byte_start": 0, "byte_end": 0, "line_start": 20, "line_end": 20,
                    "column_start": 5, "column_end": 9, "is_primary": false, "text": [], "label": null,
                    "suggested_replacement": null, "suggestion_applicability": null,
                    "expansion": {
                        "span": {
                            "file_name": "src/lib.rs", "byte_start": 0, "byte_end": 0, "line_start": 17, "line_end": 17,
                            "column_start": 1, "column_end": 9, "is_primary": false, "text": [], "label": null,
                            "suggested_replacement": null, "suggestion_applicability": null, "expansion": null
                        },
                        "macro_decl_name": "#[lowering]", "def_site_span": null
                    }
                },
                "macro_decl_name": name, "def_site_span": null
            })
        });
        serde_json::from_value(serde_json::json!({
            "message": "m", "code": {"code": code, "explanation": null}, "level": "error",
            "spans": [{
                "file_name": "src/lib.rs", "byte_start": 0, "byte_end": 0, "line_start": line, "line_end": line,
                "column_start": column, "column_end": column + 5, "is_primary": true, "text": [],
                "label": label, "suggested_replacement": null, "suggestion_applicability": null, "expansion": expansion
            }],
            "children": [], "rendered": null
        }))
        .unwrap()
    }

    fn about(diagnostic: &Diagnostic, source: Option<&str>) -> Option<(String, bool)> {
        let primary = diagnostic.spans.iter().find(|span| span.is_primary).unwrap();
        expansion_about(diagnostic, primary, source)
    }

    const SOURCE: &str = "\
async fn f(v: u32) -> u32 {
    pasted! { if v > 5 { return later(v).await; } }
    outer!(format!(\"{}\", inner!(v.await)))
}
";

    #[test]
    fn an_await_in_a_macros_own_body_is_named_by_its_expansion() {
        let awaiting =
            diagnostic("E0728", "only allowed inside `async` functions and blocks", 13, 37, Some("read_one!"));
        assert_eq!(about(&awaiting, None), Some(("read_one".to_owned(), true)));
        let path = diagnostic("E0728", "x", 13, 37, Some("combine::decode_tokio!"));
        assert_eq!(about(&path, None), Some(("decode_tokio".to_owned(), true)));
    }

    #[test]
    fn a_return_where_move_next_returns_poll_is_named_by_its_expansion() {
        let returning = diagnostic(
            "E0308",
            "expected `Poll<Result<u32, String>>`, found `Result<_, String>`",
            6,
            20,
            Some("ensure!"),
        );
        assert_eq!(about(&returning, None), Some(("ensure".to_owned(), false)));
        let other = diagnostic("E0308", "expected `u32`, found `String`", 6, 20, Some("ensure!"));
        assert_eq!(about(&other, None), None);
    }

    #[test]
    fn an_await_among_a_macros_tokens_is_the_innermost_invocations() {
        // `.await` at line 2 inside `pasted! { .. }` (columns 1-based).
        let pasted = diagnostic("E0728", "x", 2, 43, None);
        assert_eq!(about(&pasted, Some(SOURCE)), Some(("pasted".to_owned(), true)));
        // Inside `format!` inside `inner!` inside `outer!`: `inner`, Rust's own skipped.
        let nested = diagnostic("E0728", "x", 3, 34, None);
        assert_eq!(about(&nested, Some(SOURCE)), Some(("inner".to_owned(), true)));
        // Outside any macro: none.
        let bare = diagnostic("E0728", "x", 1, 3, None);
        assert_eq!(about(&bare, Some(SOURCE)), None);
    }
}
