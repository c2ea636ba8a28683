//! What the tokens of a macro the lowering does not know bind themselves, read one level of
//! token trees at a time: `let` patterns (`if let`, `while let`, a `let` statement), `for`
//! patterns and `match` arms. Such a binding may take the name of a local of the function
//! (`if let Lock::Signal(lock) = lock { lock.wait() }`); the lowering, which rewrites the
//! function's locals that live in place wherever the macro names them, must leave the pattern
//! alone and, where the binding is seen, the name too.
//!
//! Only the shapes Rust gives these constructs are read; a macro's own grammar may bind names
//! in other ways (`$name:ident` taken as a binding), which no reading of the call can know.

use std::collections::HashSet;

use proc_macro2::{Delimiter, TokenTree};

use crate::classic::syntax::tracing_macros;

/// Per token of one level: is it part of a pattern (no name there is the function's), which
/// names of the function it cannot see (bound by the macro's own code around it), and is it
/// the braces of a `match`'s arms.
pub(crate) struct Scopes {
    pub(crate) pattern: Vec<bool>,
    pub(crate) shadowed: Vec<HashSet<String>>,
    pub(crate) arms: Vec<bool>,
}

/// The scopes of `tokens`, one level; `arms` when `tokens` are a `match`'s arms.
pub(crate) fn scopes(tokens: &[TokenTree], arms: bool) -> Scopes {
    let mut scopes = Scopes {
        pattern: vec![false; tokens.len()],
        shadowed: vec![HashSet::new(); tokens.len()],
        arms: vec![false; tokens.len()],
    };
    if arms {
        match_arms(tokens, &mut scopes);
    }
    let mut index = 0;
    while index < tokens.len() {
        if is_word(&tokens[index], "let") {
            let Some(eq) = (index + 1..tokens.len()).find(|&at| is_single_eq(tokens, at)) else {
                index += 1;
                continue;
            };
            let bound = bindings(&tokens[index + 1..eq]);
            mark(&mut scopes.pattern, index + 1, eq);
            if is_conditional_let(tokens, index) {
                // Seen in the block that follows the scrutinee.
                if let Some(block) = (eq + 1..tokens.len()).find(|&at| is_brace(&tokens[at])) {
                    scopes.shadowed[block].extend(bound);
                }
            } else if let Some(end) = (eq + 1..tokens.len()).find(|&at| is_punct(&tokens[at], ';')) {
                // Seen by the statements after it.
                for shadowed in &mut scopes.shadowed[end + 1..] {
                    shadowed.extend(bound.iter().cloned());
                }
            }
            index = eq + 1;
            continue;
        }
        if is_word(&tokens[index], "for")
            && !tokens.get(index + 1).is_some_and(|next| is_punct(next, '<'))
            && let Some(in_at) = (index + 1..tokens.len()).find(|&at| is_word(&tokens[at], "in"))
        {
            let bound = bindings(&tokens[index + 1..in_at]);
            mark(&mut scopes.pattern, index + 1, in_at);
            if let Some(block) = (in_at + 1..tokens.len()).find(|&at| is_brace(&tokens[at])) {
                scopes.shadowed[block].extend(bound);
            }
            index = in_at + 1;
            continue;
        }
        if is_word(&tokens[index], "match")
            && let Some(block) = (index + 1..tokens.len()).find(|&at| is_brace(&tokens[at]))
        {
            scopes.arms[block] = true;
        }
        index += 1;
    }
    scopes
}

/// The names a macro's tokens bind for their own code only: the patterns of `if let`, `while
/// let`, `for` and `match` arms, and of `let` statements inside their groups. A `let`
/// statement at the top level is left out: a macro that pastes its tokens as statements
/// declares that local for the code after it (`pasted! { let x = 1; }`).
pub(crate) fn own_bindings(tokens: &proc_macro2::TokenStream) -> HashSet<String> {
    fn level(tokens: &[TokenTree], arms: bool, top: bool, out: &mut HashSet<String>) {
        let scopes = scopes(tokens, arms);
        let mut statement_let = vec![false; tokens.len()];
        if top {
            for (index, token) in tokens.iter().enumerate() {
                if is_word(token, "let")
                    && !is_conditional_let(tokens, index)
                    && let Some(eq) = (index + 1..tokens.len()).find(|&at| is_single_eq(tokens, at))
                {
                    mark(&mut statement_let, index + 1, eq);
                }
            }
        }
        for (index, token) in tokens.iter().enumerate() {
            if scopes.pattern[index] {
                if !statement_let[index] {
                    out.extend(bindings(std::slice::from_ref(token)));
                }
            } else if let TokenTree::Group(group) = token {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                level(&inner, scopes.arms[index], false, out);
            }
        }
    }
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = HashSet::new();
    level(&tokens, false, true, &mut out);
    out
}

/// A `match`'s arms: each pattern up to its guard or `=>`, and its bindings seen in its guard
/// and its body (up to the `,` that ends the arm, or the braces that are its body).
fn match_arms(tokens: &[TokenTree], scopes: &mut Scopes) {
    let mut start = 0;
    while start < tokens.len() {
        let Some(arrow) = (start..tokens.len()).find(|&at| is_arrow(tokens, at)) else { return };
        let guard = (start..arrow).find(|&at| is_word(&tokens[at], "if")).unwrap_or(arrow);
        let bound = bindings(&tokens[start..guard]);
        mark(&mut scopes.pattern, start, guard);
        let body_start = arrow + 2;
        let end = if tokens.get(body_start).is_some_and(is_brace) {
            let after = body_start + 1;
            if tokens.get(after).is_some_and(|token| is_punct(token, ',')) { after } else { body_start }
        } else {
            (body_start..tokens.len()).find(|&at| is_punct(&tokens[at], ',')).unwrap_or(tokens.len() - 1)
        };
        for shadowed in &mut scopes.shadowed[guard..=end.min(tokens.len() - 1)] {
            shadowed.extend(bound.iter().cloned());
        }
        start = end + 1;
    }
}

/// The names a pattern binds: its identifiers that are not paths, variants, constants,
/// keywords or struct field names before `:`.
fn bindings(pattern: &[TokenTree]) -> HashSet<String> {
    let mut bound = HashSet::new();
    for (index, token) in pattern.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                let before = index.checked_sub(1).map(|before| &pattern[before]);
                let after = pattern.get(index + 1);
                let is_path = matches!(before, Some(TokenTree::Punct(punct)) if punct.as_char() == ':')
                    || matches!(after, Some(TokenTree::Punct(punct)) if punct.as_char() == ':' || punct.as_char() == '!')
                    || matches!(after, Some(TokenTree::Group(_)));
                let is_keyword = matches!(name.as_str(), "mut" | "ref" | "box" | "_" | "true" | "false");
                let named_like_a_binding = name.starts_with(|c: char| c.is_lowercase() || c == '_');
                if !is_path && !is_keyword && named_like_a_binding {
                    bound.insert(name);
                }
            }
            TokenTree::Group(group) => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                bound.extend(bindings(&inner));
            }
            _ => {}
        }
    }
    bound
}

/// The `let` at `index` is an `if let` or a `while let`, whose bindings its block sees.
fn is_conditional_let(tokens: &[TokenTree], index: usize) -> bool {
    index > 0 && (is_word(&tokens[index - 1], "if") || is_word(&tokens[index - 1], "while"))
}

fn mark(flags: &mut [bool], from: usize, to: usize) {
    for flag in &mut flags[from..to] {
        *flag = true;
    }
}

fn is_word(token: &TokenTree, word: &str) -> bool {
    matches!(token, TokenTree::Ident(ident) if ident == word)
}

fn is_punct(token: &TokenTree, character: char) -> bool {
    matches!(token, TokenTree::Punct(punct) if punct.as_char() == character)
}

fn is_brace(token: &TokenTree) -> bool {
    matches!(token, TokenTree::Group(group) if group.delimiter() == Delimiter::Brace)
}

/// `=` alone: not `==`, `=>` (`tracing_macros::is_single_eq`), nor the end of `<=`, `>=`,
/// `!=` or a compound assignment.
fn is_single_eq(tokens: &[TokenTree], at: usize) -> bool {
    let joined_before = at > 0
        && matches!(&tokens[at - 1], TokenTree::Punct(previous)
            if previous.spacing() == proc_macro2::Spacing::Joint);
    tracing_macros::is_single_eq(tokens.get(at), tokens.get(at + 1)) && !joined_before
}

/// `=>` at `at`.
fn is_arrow(tokens: &[TokenTree], at: usize) -> bool {
    matches!(&tokens[at], TokenTree::Punct(punct) if punct.as_char() == '=' && punct.spacing() == proc_macro2::Spacing::Joint)
        && tokens.get(at + 1).is_some_and(|next| is_punct(next, '>'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<TokenTree> {
        text.parse::<proc_macro2::TokenStream>().unwrap().into_iter().collect()
    }

    #[test]
    fn an_if_let_binds_in_its_block_and_its_pattern_is_no_mention() {
        let level = tokens("if let (Self::Wait(this), Lock::Signal(lock)) = (self, lock) { this.reap(lock) } lock");
        let scopes = scopes(&level, false);
        let block = level.iter().position(is_brace).unwrap();
        assert!(scopes.pattern[2] && !scopes.pattern[4]);
        assert_eq!(scopes.shadowed[block], HashSet::from(["this".to_owned(), "lock".to_owned()]));
        assert!(scopes.shadowed[level.len() - 1].is_empty());
    }

    #[test]
    fn a_let_statement_binds_after_its_semicolon_and_match_arms_in_their_bodies() {
        let level = tokens("let n = n + 1; n");
        let scopes = scopes(&level, false);
        assert!(scopes.pattern[1]);
        assert!(scopes.shadowed[3].is_empty(), "its initializer sees the function's n");
        assert!(scopes.shadowed[level.len() - 1].contains("n"));
        let arms = tokens("Some(n) if n > 1 => n, None => n, Ok(x) => { x }");
        let scopes = super::scopes(&arms, true);
        assert!(scopes.pattern[0] && scopes.pattern[1] && !scopes.pattern[2]);
        assert!(scopes.shadowed[3].contains("n"), "the guard sees the arm's n");
        let second = arms.iter().position(|t| is_word(t, "None")).unwrap();
        assert!(!scopes.shadowed[second + 3].contains("n"), "the next arm's body sees the function's n");
        let last = arms.len() - 1;
        assert!(scopes.shadowed[last].contains("x"));
        assert!(!scopes.shadowed[last].contains("n"));
    }

    #[test]
    fn own_bindings_leave_out_a_top_level_let_statement() {
        let own =
            own_bindings(&"if let (Self::Wait(this), Lock::Wait) = (self, &lock) { this.reap() }".parse().unwrap());
        assert_eq!(own, HashSet::from(["this".to_owned()]));
        let own =
            own_bindings(&"let x = 1; { let y = 2; } for z in v {} match m { Some(w) => w, _ => 0 }".parse().unwrap());
        assert_eq!(own, HashSet::from(["y".to_owned(), "z".to_owned(), "w".to_owned()]));
    }

    #[test]
    fn comparisons_and_compound_assignments_are_not_lets() {
        let level = tokens("let a == b; x += 1");
        let scopes = scopes(&level, false);
        assert!(scopes.pattern.iter().all(|pattern| !pattern));
    }
}
