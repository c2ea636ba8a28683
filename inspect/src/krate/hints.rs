//! The hints `inspect crate` gives a function where the classic lowering's guess about a
//! method call is wrong, read from rustc's own error: a consuming method on a kept local (or on
//! a field of one) is E0507 "cannot move out of ..." at that place (`moves(x)`, `moves(x.f)`),
//! or, on a local the lowering saved after the call, E0382 "use of moved value" with "moved due
//! to this method call" (`moves(x)`); a borrowing method at a local's last use is E0597 "`y`
//! does not live long enough" (`keeps(y)`). The macro cannot know which a method is (that is decided after type checking);
//! rustc says it, so the copy's attribute is given the hint and the function built again.

use std::collections::BTreeSet;
use std::fmt;

use cargo_metadata::diagnostic::{Diagnostic, DiagnosticSpan};
use serde::{Deserialize, Serialize};

/// How many times one function is given new hints before its error is taken as its refusal:
/// each round adds at least one hint never given before, so this only bounds the builds.
pub const MAX_ROUNDS: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A method called on the local at its last use takes it by value.
    Moves,
    /// A method called on the local borrows it, at its last use too.
    Keeps,
    /// The macro's expansion awaits in the function's context (`local` is the macro's name).
    Awaits,
    /// The macro's expansion returns from the function (`local` is the macro's name).
    Returns,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Moves => "moves",
            Kind::Keeps => "keeps",
            Kind::Awaits => "awaits",
            Kind::Returns => "returns",
        }
    }

    /// About a local (`moves`, `keeps`), not a macro.
    fn of_a_local(self) -> bool {
        matches!(self, Kind::Moves | Kind::Keeps)
    }
}

/// One hint, written in the attribute as `moves(local)`, `keeps(local)`, `awaits(macro)` or
/// `returns(macro)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Hint {
    pub kind: Kind,
    /// The local, field or call (`moves`, `keeps`), or the macro's name (`awaits`, `returns`).
    pub local: String,
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.kind.word(), self.local)
    }
}

impl From<Hint> for String {
    fn from(hint: Hint) -> String {
        hint.to_string()
    }
}

impl TryFrom<String> for Hint {
    type Error = String;

    fn try_from(text: String) -> Result<Hint, String> {
        // `moves` may name a field of a local (`moves(self.txn)`); `keeps` names a local.
        // (`moves` may also name a call whose value a method takes: `moves(d.to_t())`.)
        let parsed = |prefix: &str, kind: Kind| {
            let local = text.strip_prefix(prefix)?.strip_suffix(')')?;
            let place = match kind {
                Kind::Moves => field_path(local).or_else(|| is_call(local).then(|| local.to_owned()))?,
                Kind::Keeps | Kind::Awaits | Kind::Returns => is_local_name(local).then(|| local.to_owned())?,
            };
            (place == local).then_some(Hint { kind, local: place })
        };
        parsed("moves(", Kind::Moves)
            .or_else(|| parsed("keeps(", Kind::Keeps))
            .or_else(|| parsed("awaits(", Kind::Awaits))
            .or_else(|| parsed("returns(", Kind::Returns))
            .ok_or_else(|| {
                format!("{text:?} is not a hint (moves(NAME), keeps(NAME), awaits(MACRO) or returns(MACRO))")
            })
    }
}

/// The hint rustc's error calls for, if it is one of the two the lowering takes (without the
/// source file: `called_for_in`).
#[cfg(test)]
pub fn called_for(diagnostic: &Diagnostic) -> Option<Hint> {
    called_for_in(diagnostic, None)
}

/// `called_for`, with the source file of the error's primary span (its lines), which a call
/// over more than two lines needs (`receiver_call`).
pub fn called_for_in(diagnostic: &Diagnostic, source: Option<&str>) -> Option<Hint> {
    let code = diagnostic.code.as_ref()?.code.as_str();
    let primary = diagnostic.spans.iter().find(|span| span.is_primary)?;
    // An expansion that awaits or returns in the function's context: E0728, or a return where
    // `move_next`'s `Poll<..>` was expected (`macro_hints`).
    if let Some((name, awaits)) = super::macro_hints::expansion_about(diagnostic, primary, source) {
        let kind = if awaits { Kind::Awaits } else { Kind::Returns };
        return Some(Hint { kind, local: name });
    }
    match code {
        // "cannot move out of a raw pointer": the local is the primary span's text (`cmd` in
        // `cmd.apply(db)`), or the field of a local there (`self.txn` in `self.txn.commit()`:
        // the hint takes that field); a deref or an index there is no local's, and no hint
        // helps.
        //
        // Where the method is called on a call's value that begins at the local (`d.to_t()` in
        // `d.to_t().finish().await`: rustc highlights `d`, and `finish()` "moved due to this
        // method call"), the hint names that call (`moves(d.to_t())`).
        // "cannot move out of a mutable reference" at a local among a macro's tokens: the
        // macro was lent the local (a reference bounded by the run), and moves it; where it
        // is one whose expansion may return (`ok_or!(r, self)`: `Err(e) => return Err((e,
        // $self))`), `returns(m)` has it given the value for the call and give it back after.
        "E0507"
            if diagnostic.message == "cannot move out of a mutable reference"
                && highlighted(primary).is_some_and(|text| is_local_name(&text))
                && let Some(mac) =
                    source.and_then(|source| super::macro_hints::enclosing_invocation(primary, source)) =>
        {
            Some(Hint { kind: Kind::Returns, local: mac })
        }
        "E0507" if diagnostic.message.starts_with("cannot move out of") => {
            if let Some(call) = receiver_call(diagnostic, primary, source).or_else(|| awaited_receiver(primary)) {
                return Some(Hint { kind: Kind::Moves, local: call });
            }
            highlighted(primary).and_then(|text| field_path(&text)).map(|local| Hint { kind: Kind::Moves, local })
        }
        // "use of moved value: `lp`" where a method call moved it ("`lp` moved due to this
        // method call"): the lowering kept the local past a call that consumed it
        // (`c.set(lp.go())`, `go(self)`), which `moves(lp)` says.
        "E0382" => {
            let name = diagnostic.message.strip_prefix("use of moved value: `")?.strip_suffix('`')?;
            let by_a_method = diagnostic.spans.iter().any(|span| {
                span.label.as_deref().is_some_and(|label| label.ends_with("moved due to this method call"))
            });
            (by_a_method && is_local_name(name)).then(|| Hint { kind: Kind::Moves, local: name.to_owned() })
        }
        // "`tx` does not live long enough", or "borrowed value does not live long enough" with
        // the local at the primary span.
        "E0597" => {
            let named = diagnostic
                .message
                .strip_prefix('`')
                .and_then(|rest| rest.split_once("` does not live long enough"))
                .map(|(name, _)| name.to_owned());
            named
                .or_else(|| highlighted(primary))
                .filter(|text| is_local_name(text))
                .map(|local| Hint { kind: Kind::Keeps, local })
        }
        _ => None,
    }
}

/// The call a consuming method was called on, where it starts at the primary span and the
/// method's call is the span "moved due to this method call" on the same line: the text
/// between them (`d.to_t()`, `P::start(self.inner)`), if it is a call.
/// A chain written over two lines (`Proto::start(self.inner)` then `.negotiate(..)` on the
/// next) joins the rest of the first line and the second up to the method; over more (at most
/// eight), the lines between come from `source`, the file's text.
fn receiver_call(diagnostic: &Diagnostic, primary: &DiagnosticSpan, source: Option<&str>) -> Option<String> {
    let method = diagnostic.spans.iter().find(|span| {
        !span.is_primary
            && span.file_name == primary.file_name
            && (primary.line_start..primary.line_start + 8).contains(&span.line_start)
            && span.label.as_deref().is_some_and(|label| label.ends_with("moved due to this method call"))
    })?;
    let [line] = primary.text.as_slice() else { return None };
    let start = line.highlight_start.checked_sub(1)?;
    let end = method.column_start.checked_sub(1)?;
    let text: String = if method.line_start == primary.line_start {
        line.text.chars().skip(start).take(end.checked_sub(start)?).collect()
    } else {
        let next = method.text.first()?;
        let between: Vec<&str> = match method.line_start - primary.line_start {
            1 => Vec::new(),
            // (1-based lines: those after the primary's, before the method's.)
            _ => source?.lines().skip(primary.line_start).take(method.line_start - primary.line_start - 1).collect(),
        };
        line.text.chars().skip(start).chain(between.concat().chars()).chain(next.text.chars().take(end)).collect()
    };
    let call = text.trim_end().strip_suffix('.')?.trim();
    is_call(call).then(|| call.split_whitespace().collect())
}

/// The awaited call a consuming method is called on, where rustc highlights that call's
/// `await` (`mailbox.next().await` in `mailbox.next().await.dispatch_to(actor).await`, an
/// actor framework's `yield_once`: the lowering keeps the awaited value in place): the call and
/// its `.await`, back to where the expression begins on the line, without spaces.
fn awaited_receiver(primary: &DiagnosticSpan) -> Option<String> {
    let [line] = primary.text.as_slice() else { return None };
    let chars: Vec<char> = line.text.chars().collect();
    let end = line.highlight_end.checked_sub(1)?;
    let highlighted: String = chars.get(line.highlight_start.checked_sub(1)?..end)?.iter().collect();
    if highlighted != "await" {
        return None;
    }
    let mut start = end;
    let mut depth = 0usize;
    while start > 0 {
        let c = chars[start - 1];
        match c {
            ')' | ']' => depth += 1,
            '(' | '[' if depth == 0 => break,
            '(' | '[' => depth -= 1,
            _ if depth > 0 => {}
            _ if c.is_alphanumeric() || "_.:?!".contains(c) => {}
            _ => break,
        }
        start -= 1;
    }
    let text: String = chars[start..end].iter().collect::<String>().split_whitespace().collect();
    (is_call(&text) && text.ends_with(".await")).then_some(text)
}

/// A call as a hint names it: an identifier first, parentheses balanced, and a call, an await
/// or a `?` last (`d.to_t()`, `open().await?`).
fn is_call(text: &str) -> bool {
    let starts = text.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    let ends = text.ends_with(')') || text.ends_with('?') || text.ends_with(".await");
    starts && depth == 0 && ends && text.contains('(')
}

/// The source text a one-line span covers.
fn highlighted(span: &DiagnosticSpan) -> Option<String> {
    let [line] = span.text.as_slice() else { return None };
    let text: String = line
        .text
        .chars()
        .skip(line.highlight_start.saturating_sub(1))
        .take(line.highlight_end - line.highlight_start)
        .collect();
    Some(text)
}

/// A name a hint can give: an identifier (raw ones too) or `self`, not another keyword the
/// attribute's `moves(..)`/`keeps(..)` cannot take, and not a capitalised one: at the start of
/// a builder chain (`Server::new(io).accept()`) that is a type, which no hint is about.
fn is_local_name(text: &str) -> bool {
    let ident = text.strip_prefix("r#").unwrap_or(text);
    let mut chars = ident.chars();
    let starts = chars.next().is_some_and(|c| c.is_lowercase() || c == '_');
    starts && chars.all(|c| c.is_alphanumeric() || c == '_') && !is_keyword(text)
}

/// A keyword, which names no local (`await` where rustc highlights it in `.await?`), and `_`.
fn is_keyword(text: &str) -> bool {
    const KEYWORDS: [&str; 42] = [
        "Self", "_", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do",
        "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop",
        "macro", "match", "mod", "move", "mut", "priv", "pub", "ref", "return", "static", "struct", "super", "trait",
        "true", "try",
    ];
    const MORE: [&str; 8] = ["type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while"];
    KEYWORDS.contains(&text) || MORE.contains(&text) || text == "yield"
}

/// A local or a field of one (`cmd`, `self.txn`, `w.a.0`) as a hint names it, without spaces,
/// if the text is such a place.
fn field_path(text: &str) -> Option<String> {
    let parts: Vec<&str> = text.split('.').map(str::trim).collect();
    let (root, members) = parts.split_first()?;
    let fields_only = members.iter().all(|member| {
        let named = member.strip_prefix("r#").unwrap_or(member);
        !named.is_empty() && named.chars().all(|c| c.is_alphanumeric() || c == '_')
    });
    (is_local_name(root) && fields_only).then(|| parts.join("."))
}

/// One function's hints: those in force, every one ever given, and the rounds used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Given {
    in_force: BTreeSet<Hint>,
    tried: BTreeSet<Hint>,
    rounds: usize,
}

impl Given {
    /// Take the hints `called_for` names that were never given (a hint given once is not
    /// given again, so a hint that did not help cannot loop), within `MAX_ROUNDS`: whether any
    /// was new. A hint about a local replaces the opposite one about it.
    pub fn learn<'a>(&mut self, called_for: impl IntoIterator<Item = &'a Hint>) -> bool {
        if self.rounds >= MAX_ROUNDS {
            return false;
        }
        let mut learned = false;
        for hint in called_for {
            if self.tried.insert(hint.clone()) {
                // (`moves` replaces `keeps` of the same local, and the other way round.)
                self.in_force
                    .retain(|given| !(given.local == hint.local && given.kind.of_a_local() && hint.kind.of_a_local()));
                self.in_force.insert(hint.clone());
                learned = true;
            }
        }
        self.rounds += usize::from(learned);
        learned
    }

    pub fn in_force(&self) -> Vec<Hint> {
        self.in_force.iter().cloned().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.in_force.is_empty()
    }

    /// The attribute's arguments after the mode: `, moves(a, b), keeps(c)`, or nothing.
    pub fn attribute_args(&self) -> String {
        let names = |kind: Kind| -> Vec<&str> {
            self.in_force.iter().filter(|hint| hint.kind == kind).map(|hint| hint.local.as_str()).collect()
        };
        let mut args = String::new();
        for kind in [Kind::Moves, Kind::Keeps, Kind::Awaits, Kind::Returns] {
            let names = names(kind);
            if !names.is_empty() {
                args.push_str(&format!(", {}({})", kind.word(), names.join(", ")));
            }
        }
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(code: &str, message: &str, text: &str, start: usize, end: usize) -> Diagnostic {
        serde_json::from_value(serde_json::json!({
            "message": message, "code": {"code": code, "explanation": null}, "level": "error",
            "spans": [{
                "file_name": "src/lib.rs", "byte_start": 0, "byte_end": 0, "line_start": 3, "line_end": 3,
                "column_start": start, "column_end": end, "is_primary": true,
                "text": [{"text": text, "highlight_start": start, "highlight_end": end}],
                "label": null, "suggested_replacement": null, "suggestion_applicability": null, "expansion": null
            }],
            "children": [], "rendered": null
        }))
        .unwrap()
    }

    #[test]
    fn a_local_a_macro_moves_out_of_its_lent_reference_names_the_macro() {
        let line = "    let id = ok_or!(self.run(&x).await, self);";
        let source = format!("fn f() {{\n{line}\n}}\n");
        let at = line.rfind("self").unwrap() + 1;
        let mut moved = diagnostic("E0507", "cannot move out of a mutable reference", line, at, at + 4);
        moved.spans[0].line_start = 2;
        moved.spans[0].line_end = 2;
        assert_eq!(called_for_in(&moved, Some(&source)).map(|h| h.to_string()).as_deref(), Some("returns(ok_or)"));
        let outside = "    let id = conn.take(self);";
        let source = format!("fn f() {{\n{outside}\n}}\n");
        let at = outside.rfind("self").unwrap() + 1;
        let mut plain = diagnostic("E0507", "cannot move out of a mutable reference", outside, at, at + 4);
        plain.spans[0].line_start = 2;
        assert_eq!(called_for_in(&plain, Some(&source)).map(|h| h.to_string()).as_deref(), Some("moves(self)"));
    }

    #[test]
    fn a_consuming_method_on_an_awaited_value_names_the_awaited_call() {
        let text = "    let n = mailbox.next(a, b).await.dispatch_to(actor).await;";
        let at = text.find("await").unwrap() + 1;
        let moved = diagnostic("E0507", "cannot move out of a raw pointer", text, at, at + 5);
        assert_eq!(called_for(&moved).map(|h| h.to_string()).as_deref(), Some("moves(mailbox.next(a,b).await)"));
        let alone = diagnostic("E0507", "cannot move out of a raw pointer", "    (x).await.go().await", 9, 14);
        assert_eq!(called_for(&alone), None, "no call before the await");
    }

    #[test]
    fn rustc_errors_name_the_hint_and_the_local() {
        let moved = diagnostic("E0507", "cannot move out of a raw pointer", "    cmd.apply(db).await + seen", 5, 8);
        assert_eq!(called_for(&moved).map(|h| h.to_string()).as_deref(), Some("moves(cmd)"));
        let field = diagnostic("E0507", "cannot move out of a raw pointer", "    self.inner.send().await", 5, 15);
        assert_eq!(called_for(&field).map(|h| h.to_string()).as_deref(), Some("moves(self.inner)"), "the field");
        let deep = diagnostic("E0507", "cannot move out of a raw pointer", "    w.a.0.close().await", 5, 10);
        assert_eq!(called_for(&deep).map(|h| h.to_string()).as_deref(), Some("moves(w.a.0)"));
        let deref = diagnostic("E0507", "cannot move out of a raw pointer", "    (*w).close().await", 5, 9);
        assert_eq!(called_for(&deref), None, "a deref is no local's field");
        let kept = diagnostic("E0597", "`tx` does not live long enough", "    tx.send(v).await", 5, 7);
        assert_eq!(called_for(&kept).map(|h| h.to_string()).as_deref(), Some("keeps(tx)"));
        let unnamed = diagnostic("E0597", "borrowed value does not live long enough", "    ab.send(v).await", 5, 7);
        assert_eq!(called_for(&unnamed).map(|h| h.to_string()).as_deref(), Some("keeps(ab)"));
        let other = diagnostic("E0716", "temporary value dropped while borrowed", "    tx.send(v).await", 5, 7);
        assert_eq!(called_for(&other), None);
        let chain =
            diagnostic("E0507", "cannot move out of a raw pointer", "    Server::new(io).accept().await", 5, 11);
        assert_eq!(called_for(&chain), None, "a type is no local");
        let keyword = diagnostic("E0507", "cannot move out of a raw pointer", "            .await?", 14, 19);
        assert_eq!(called_for(&keyword), None, "`await` is no local");
        let this = diagnostic("E0507", "cannot move out of a raw pointer", "    self.send().await", 5, 9);
        assert_eq!(called_for(&this).map(|h| h.to_string()).as_deref(), Some("moves(self)"));
    }

    #[test]
    fn a_consuming_method_on_a_call_s_value_names_the_call() {
        let mut moved = diagnostic("E0507", "cannot move out of a raw pointer", "    d.to_t().finish().await", 5, 6);
        let mut method = moved.spans[0].clone();
        method.is_primary = false;
        method.label = Some("value moved due to this method call".to_owned());
        method.column_start = 14;
        moved.spans.push(method);
        assert_eq!(called_for(&moved).map(|h| h.to_string()).as_deref(), Some("moves(d.to_t())"));
        // A method on the local itself is the local's hint, as before.
        let mut on_local = diagnostic("E0507", "cannot move out of a raw pointer", "    cmd.apply(db).await", 5, 8);
        let mut method = on_local.spans[0].clone();
        method.is_primary = false;
        method.label = Some("value moved due to this method call".to_owned());
        method.column_start = 9;
        on_local.spans.push(method);
        assert_eq!(called_for(&on_local).map(|h| h.to_string()).as_deref(), Some("moves(cmd)"));
        // Over two lines: the rest of the first, the second up to the method.
        let mut lines = diagnostic("E0507", "cannot move out of a raw pointer", "    Proto::start(self.inner)", 5, 10);
        let mut method = lines.spans[0].clone();
        method.is_primary = false;
        method.label = Some("value moved due to this method call".to_owned());
        method.line_start += 1;
        method.column_start = 10;
        method.text[0].text = "        .negotiate(&[None])".to_owned();
        lines.spans.push(method);
        assert_eq!(called_for(&lines).map(|h| h.to_string()).as_deref(), Some("moves(Proto::start(self.inner))"));
        // Over more, with the file's lines between.
        let mut more = lines.clone();
        more.spans[1].line_start += 2;
        let source = "fn f() {\n    Proto::start(self.inner)\n        .negotiate(&[None])\n        .await?\n        .read_more()";
        more.spans[0].line_start = 2;
        more.spans[1].line_start = 5;
        more.spans[1].column_start = 10;
        more.spans[1].text[0].text = "        .read_more()".to_owned();
        assert_eq!(called_for(&more), None, "not without the file");
        assert_eq!(
            called_for_in(&more, Some(source)).map(|h| h.to_string()).as_deref(),
            Some("moves(Proto::start(self.inner).negotiate(&[None]).await?)")
        );
        assert_eq!(
            Hint::try_from("moves(P::start(self.inner))".to_owned()).map(|hint| hint.local),
            Ok("P::start(self.inner)".to_owned())
        );
        assert!(Hint::try_from("keeps(d.to_t())".to_owned()).is_err(), "`keeps` names a local");
        assert!(Hint::try_from("moves(d.to_t()))".to_owned()).is_err());
    }

    #[test]
    fn a_local_moved_by_a_method_it_was_saved_after_is_moves() {
        let mut moved = diagnostic("E0382", "use of moved value: `lp`", "    let lp = L(s);", 9, 11);
        assert_eq!(called_for(&moved), None, "not by a method call: no hint says more");
        let mut label = moved.spans[0].clone();
        label.is_primary = false;
        label.label = Some("`lp` moved due to this method call".to_owned());
        moved.spans.push(label);
        assert_eq!(called_for(&moved).map(|h| h.to_string()).as_deref(), Some("moves(lp)"));
    }

    #[test]
    fn a_hint_is_given_once_and_replaces_its_opposite() {
        let moves = Hint::try_from("moves(x)".to_owned()).unwrap();
        let keeps = Hint::try_from("keeps(x)".to_owned()).unwrap();
        let other = Hint::try_from("keeps(y)".to_owned()).unwrap();
        let mut given = Given::default();
        assert!(given.learn([&moves, &other]));
        assert_eq!(given.attribute_args(), ", moves(x), keeps(y)");
        assert!(!given.learn([&moves]), "given once already");
        assert!(given.learn([&keeps]));
        assert_eq!(given.attribute_args(), ", keeps(x, y)");
        assert!(!given.learn([&moves]), "no ping-pong between the two");
        assert_eq!(Hint::try_from("moves(self)".to_owned()).map(|hint| hint.local), Ok("self".to_owned()));
        assert!(Hint::try_from("moves(crate)".to_owned()).is_err());
        assert_eq!(Hint::try_from("moves(self.txn)".to_owned()).map(|hint| hint.local), Ok("self.txn".to_owned()));
        assert!(Hint::try_from("keeps(self.txn)".to_owned()).is_err(), "`keeps` names a local");
        assert!(Hint::try_from("moves x".to_owned()).is_err());
    }

    #[test]
    fn a_macros_hint_stands_beside_a_locals_of_the_same_name() {
        let awaits = Hint::try_from("awaits(read)".to_owned()).unwrap();
        let returns = Hint::try_from("returns(ensure)".to_owned()).unwrap();
        let keeps = Hint::try_from("keeps(read)".to_owned()).unwrap();
        assert_eq!((awaits.kind, returns.kind), (Kind::Awaits, Kind::Returns));
        let mut given = Given::default();
        assert!(given.learn([&keeps, &awaits]));
        assert!(given.learn([&returns]));
        assert_eq!(given.attribute_args(), ", keeps(read), awaits(read), returns(ensure)");
        assert!(Hint::try_from("awaits(a::b)".to_owned()).is_err(), "a macro's name, without its path");
    }
}
