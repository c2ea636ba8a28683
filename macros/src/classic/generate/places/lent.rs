//! Macros the lowering cannot see into, lent the locals they name: by value at a last use,
//! else a reference bounded by a run (`Places::lend`); the standard and tracing macros' own
//! grammars, read instead.

use super::*;
use crate::classic::syntax::ident_for;
use crate::classic::syntax::jumps::leaves_the_function;

impl Places<'_> {
    /// A macro call, its mentions of visible locals rewritten. A standard one's arguments are
    /// expressions the lowering sees, rewritten as any other. Any other macro is code the
    /// lowering cannot see into, which may keep what it is handed past the call (a `move`
    /// closure it expands to, stored somewhere): it never receives a raw place. A visible
    /// local that only this macro names in the statement, and no code after it, is lent by
    /// value, as the plain function's macro gets the local itself: the `let`s that take those
    /// values are returned, for the caller to write before the macro. Any other mention is a
    /// place whose lifetime is bounded by this run of `move_next` (`lend`), so that a borrow
    /// the macro keeps longer is rustc's error at the user's line. `placed`: the caller writes
    /// what this returns before the macro (else every mention is lent where it is).
    pub(super) fn lent_macro(&mut self, mac: &mut syn::Macro, placed: bool) -> TokenStream {
        let (before, after) = self.lent_macro_around(mac, placed, false);
        debug_assert!(after.is_empty(), "nothing is given back where no code follows the macro");
        before
    }

    /// `lent_macro`, and, where `around` (the caller writes code after the macro too), the
    /// locals given back after it (`given_back`): what to write before the macro, and after.
    pub(super) fn lent_macro_around(
        &mut self,
        mac: &mut syn::Macro,
        placed: bool,
        around: bool,
    ) -> (TokenStream, TokenStream) {
        // `stringify!`'s tokens are text, never code: they name no local, and stay as written.
        if mac.path.segments.last().is_some_and(|segment| segment.ident == "stringify") {
            return (TokenStream::new(), TokenStream::new());
        }
        if let Some(Ok(mut parsed)) = std_macros::parse(mac) {
            let uses: Vec<std_macros::ArgumentUse> =
                parsed.exprs_with_use().into_iter().map(|(_, usage)| usage).collect();
            for (expr, usage) in parsed.exprs_mut().into_iter().zip(uses) {
                match usage {
                    std_macros::ArgumentUse::Borrowed => self.rewrite(expr, PlaceUse::Place),
                    std_macros::ArgumentUse::Moved => self.value(expr),
                }
            }
            // `"{v}"` captures `v` by name: name the value instead of the place.
            for args in parsed.format_args_mut() {
                for (name, span) in args.inline_captures() {
                    if let Some(local) = self.lookup(&name) {
                        let ident = with_span(&local.ident, span);
                        let arg_name = ident_for(&name, span);
                        if !args.args.iter().any(|arg| arg.name.as_ref().is_some_and(|known| *known == arg_name)) {
                            args.args.push(std_macros::FormatArg {
                                name: Some(arg_name),
                                expr: syn::parse_quote_spanned!(span=> (*#ident.get())),
                            });
                        }
                    }
                }
            }
            mac.tokens = parsed.arguments();
            return (TokenStream::new(), TokenStream::new());
        }
        if has_tracing_fields(mac) {
            let captured = self.message_captures(&mac.tokens);
            self.lending.tracing_tokens = true;
            let mut tokens = self.tokens(mac.tokens.clone(), Fields::Named, &HashSet::new());
            // `"{req:?}"` in the message captures `req` by name, which names its place here:
            // the value is passed as the named argument the capture reads instead.
            for (name, place) in captured {
                let trailing_comma = matches!(tokens.clone().into_iter().last(), Some(TokenTree::Punct(punct)) if punct.as_char() == ',');
                let comma = if trailing_comma { quote!() } else { quote!(,) };
                let arg_name = ident_for(&name, place.span());
                let lent = self.lend(&place, place.span());
                tokens.extend(quote_spanned!(place.span()=> #comma #arg_name = #lent));
            }
            self.lending.tracing_tokens = false;
            mac.tokens = tokens;
            return (TokenStream::new(), TokenStream::new());
        }
        let by_value = self.lent_by_value(mac);
        self.lent_by_value.extend(by_value.iter().map(|name| lent_key(mac, name).expect("a macro with a position")));
        // Each place the tokens lend is lent through one reference, bound before the macro, so
        // that no two `&mut` made from one place are alive at once, however often the macro
        // names it or pastes what names it (`generate::places`, "lent"); `lend` gathers them.
        if placed {
            *self.lending.gathered.borrow_mut() = Some(Vec::new());
        }
        let given = if placed && around { self.given_back(mac, &by_value) } else { Vec::new() };
        let mut named_values = by_value.clone();
        named_values.extend(given.iter().filter(|name| *name != "self").cloned());
        let captured = if placed { self.captured_by_literals(&mac.tokens, &named_values) } else { TokenStream::new() };
        let given_self = given.iter().any(|name| name == "self");
        self.lending.given_self = given_self.then(given_self_binding);
        mac.tokens = self.tokens(mac.tokens.clone(), Fields::Sigils, &named_values);
        self.lending.given_self = None;
        let bound = self.lending.gathered.borrow_mut().take().unwrap_or_default();
        let krate = self.krate;
        let references = bound.iter().map(|(place, span, reference)| {
            let binding = lent_binding(place, *span);
            let run = Ident::new(LENT_RUN, Span::mixed_site().located_at(*span));
            let reborrow = reborrow_binding(place, *span);
            let reborrowed = match reference {
                Some(true) => quote_spanned!(*span=> let #reborrow = &mut **#binding;),
                Some(false) => quote_spanned!(*span=> let #reborrow = *#binding;),
                None => TokenStream::new(),
            };
            quote_spanned!(*span=> let #binding = #krate::__private::lend(#place, #run); #reborrowed)
        });
        let values: Vec<TokenStream> = by_value
            .iter()
            .map(|name| {
                let place = &self.visible[name].ident;
                // The user's own identifier: the macro's tokens (and a `"{v}"` among them)
                // name the value, as in the plain function.
                let value = ident_for(name, place.span());
                let span = place.span();
                quote_spanned!(span=>
                    #[allow(unused_variables, unused_mut)]
                    let mut #value = (&#krate::__private::ByValue(#place)).by_value();
                )
            })
            .collect();
        let (taken, given_back): (Vec<TokenStream>, Vec<TokenStream>) = given
            .iter()
            .map(|name| {
                let place = &self.visible[name].ident;
                let span = place.span();
                let value = if name == "self" { given_self_binding() } else { ident_for(name, span) };
                // The place under a name of its own: the value's binding hides the local's.
                let holder = Ident::new(&format!("__given_place_{}", place), Span::mixed_site());
                (
                    quote_spanned!(span=> let #holder = #place; #[allow(unused_mut)] let mut #value = #holder.take();),
                    quote_spanned!(span=> #holder.assign(#value);),
                )
            })
            .unzip();
        (quote!(#(#values)* #(#taken)* #(#references)* #captured), quote!(#(#given_back)*))
    }

    /// The kept locals a macro whose expansion may return from the function (`returns(m)`) is
    /// handed whole, as one of its arguments (`ok_or!(self.run().await, self)`), where it does
    /// not get their values (`lent_by_value`): such a macro may move the local on the path
    /// that returns (`Err(e) => return Err((e, $owner))`) and leave it on the others. It is
    /// taken out of its place for the macro (the tokens name the value), and given back after
    /// it: on the return path the value is the macro's to move or drop, as the plain
    /// function's would be. (A macro that moves it on a path that goes on leaves nothing to
    /// give back: rustc's E0382 there, as the plain function's later use is.)
    fn given_back(&self, mac: &syn::Macro, by_value: &HashSet<String>) -> Vec<String> {
        let Some(name) = mac.path.segments.last() else { return Vec::new() };
        if !crate::classic::hints::returns(&name.ident.to_string()) {
            return Vec::new();
        }
        let mut given = Vec::new();
        for name in bare_arguments(&mac.tokens) {
            if !by_value.contains(&name) && !given.contains(&name) && self.lookup(&name).is_some() {
                given.push(name);
            }
        }
        given
    }

    /// `"{v}"` among a macro's tokens (a `format!` nested in them, or a macro of the user's
    /// that formats) captures `v` by name, where `v` names the local's place: a reference to
    /// the lent value is bound under that name before the macro, for the capture to read
    /// (`let v = &(*__lent_v);`). Not the locals lent by value, which are bound under their
    /// names already.
    fn captured_by_literals(&self, tokens: &TokenStream, by_value: &HashSet<String>) -> TokenStream {
        fn literals(tokens: &TokenStream, out: &mut Vec<(String, Span)>) {
            for token in tokens.clone() {
                match token {
                    TokenTree::Literal(literal) => out.extend(std_macros::token_captures_at(&literal)),
                    TokenTree::Group(group) => literals(&group.stream(), out),
                    _ => {}
                }
            }
        }
        let mut found = Vec::new();
        literals(tokens, &mut found);
        let mut named: Vec<String> = Vec::new();
        let mut bindings = TokenStream::new();
        for (name, span) in found {
            if named.contains(&name) || by_value.contains(&name) {
                continue;
            }
            let Some(local) = self.lookup(&name) else { continue };
            let value = self.lent_mention(local, span);
            let ident = ident_for(&name, span);
            bindings.extend(quote_spanned!(span=> #[allow(unused_variables)] let #ident = &#value;));
            named.push(name);
        }
        bindings
    }

    /// The visible locals a macro the lowering cannot see into is lent by value: those that
    /// no code after the statement names, that the statement names nowhere after the macro
    /// (a borrow taken before it and still alive is the twin's error there), and only
    /// where the macro runs once, as part of the statement (not in a loop, closure or async
    /// block, which may run again or later). In a closure or async block that runs where it
    /// is made (`Lending::runs_once_at`: an invocation a hint runs in an awaited block), only
    /// those its tokens visibly move (`visibly_moved`, `(self, lock)`): a value lent to a
    /// macro that only borrows it drops where the statement ends, and a block's statement
    /// is the macro's own, where the function's would have it drop at its scope's end; and
    /// the parameters declared a reference, which drop nothing: the macro gets the reference
    /// itself (reborrowed for its whole lifetime, `ReborrowOut`), so that what it makes of it
    /// may be the function's value (`Event<'b>` of `buf: &'b mut Vec<u8>`).
    pub(super) fn lent_by_value(&self, mac: &syn::Macro) -> HashSet<String> {
        let runs_once_in_block = self.lending.deferred > 0 && self.lending.runs_once_at == Some(self.lending.deferred);
        // (Only a macro whose place in the source is known: the twin finds it by that.)
        if (self.lending.deferred > 0 && !runs_once_in_block)
            || std_macros::parse(mac).is_some()
            || has_tracing_fields(mac)
            || lent_key(mac, "").is_none()
        {
            return HashSet::new();
        }
        let mut found = Vec::new();
        mentions::of_tokens(&mac.tokens, &mut found, false);
        let mut here: HashMap<String, usize> = HashMap::new();
        for mention in found {
            *here.entry(mention_name(mention)).or_default() += 1;
        }
        here.into_iter()
            .filter(|(name, count)| {
                // (`self` stays a place: a macro that takes the receiver by value is rare, and
                // its value has no name of the user's to bind.)
                name != "self"
                    && self.lending.last_uses.contains(name)
                    && self.lookup(name).is_some()
                    && self.lending.mentions_here.get(name) == Some(count)
                    && (!runs_once_in_block
                        || visibly_moved(&mac.tokens, name)
                        || self.lookup(name).is_some_and(|local| local.holds_reference))
            })
            .map(|(name, _)| name)
            .collect()
    }

    /// The place of the local whose place is `place`, lent to a macro: a reference bounded by
    /// this run of `move_next` (`lowering::__private::lend`), or by the run of the closure or
    /// async block around it that runs where it is made (`own_run`). A `move` closure or async
    /// block the macro expands to captures the run's anchor with it, so that keeping it past
    /// the run is a compile error, never a pointer into a state machine that may be gone.
    /// (One of tracing's macros gets the place itself: `tracing_tokens`.)
    pub(super) fn lend(&self, place: &Ident, span: Span) -> TokenStream {
        if self.lending.tracing_tokens {
            return quote_spanned!(span=> (*#place.get()));
        }
        if let Some(gathered) = self.lending.gathered.borrow_mut().as_mut() {
            if !gathered.iter().any(|(known, ..)| known == place) {
                gathered.push((place.clone(), span, None));
            }
            let binding = lent_binding(place, span);
            return quote_spanned!(span=> (*#binding));
        }
        let krate = self.krate;
        let run = Ident::new(LENT_RUN, Span::mixed_site().located_at(span));
        quote_spanned!(span=> (*#krate::__private::lend(#place, #run)))
    }

    /// A mention of `local` among a macro's tokens: its lent place (`lend`), or, for a local
    /// declared a reference (`buf: &mut Vec<u8>`, `&mut self`) where the reference is bound
    /// before the macro, a reborrow of the same type and lifetime bound, under an identifier:
    /// a macro whose rule takes an identifier (`$buf:ident`, `$self:ident`) is handed one, as
    /// the plain function's macro is.
    fn lent_mention(&self, local: &InPlace, span: Span) -> TokenStream {
        let place = with_span(&local.ident, span);
        if let Some(reference) = local.reference
            && !self.lending.tracing_tokens
            && let Some(gathered) = self.lending.gathered.borrow_mut().as_mut()
        {
            match gathered.iter_mut().find(|(known, ..)| *known == place) {
                Some(known) => known.2 = Some(reference),
                None => gathered.push((place.clone(), span, Some(reference))),
            }
            return quote::ToTokens::into_token_stream(reborrow_binding(&place, span));
        }
        self.lend(&place, span)
    }

    /// Any other macro: its tokens, with each mention of a visible local (an identifier not
    /// after `.` or `::` and not before `!`, `::` or `(`) made its lent place, except those
    /// `by_value` names, which name the values taken before the macro.
    pub(super) fn tokens(&self, tokens: TokenStream, fields: Fields, by_value: &HashSet<String>) -> TokenStream {
        let mut shadowed = HashSet::new();
        shadowed.extend(by_value.iter().cloned());
        self.tokens_within(tokens, fields, &shadowed, false)
    }

    /// One level of a macro's tokens: `shadowed` names the function's locals that the
    /// macro's own bindings hide here, `arms` says the tokens are a `match`'s arms
    /// (`macro_bindings`); a pattern's names are never the function's.
    pub(super) fn tokens_within(
        &self,
        tokens: TokenStream,
        mut fields: Fields,
        shadowed: &HashSet<String>,
        arms: bool,
    ) -> TokenStream {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let scopes = macro_bindings::scopes(&tokens, arms);
        let hidden = |index: usize, name: &str| {
            scopes.pattern[index] || shadowed.contains(name) || scopes.shadowed[index].contains(name)
        };
        let mut out = Vec::new();
        let mut skip_to = 0;
        for (index, token) in tokens.iter().enumerate() {
            if index < skip_to {
                continue;
            }
            // tracing's fields come before its message: what follows the message is format
            // arguments, which are expressions.
            let at_argument_start =
                index == 0 || matches!(&tokens[index - 1], TokenTree::Punct(punct) if punct.as_char() == ',');
            if at_argument_start && matches!(token, TokenTree::Literal(literal) if literal.to_string().starts_with('"'))
            {
                fields = Fields::Sigils;
            }
            if let Some((field, end)) = self.shorthand_field(&tokens, index, fields) {
                out.extend(field);
                skip_to = end;
                continue;
            }
            // `stringify!(..)` among the tokens (`concat!("failed: ", stringify!(cond))`): text.
            if let (TokenTree::Ident(ident), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(_))) =
                (token, tokens.get(index + 1), tokens.get(index + 2))
                && ident == "stringify"
                && bang.as_char() == '!'
            {
                out.extend(tokens[index..index + 3].iter().cloned());
                skip_to = index + 3;
                continue;
            }
            match token {
                TokenTree::Ident(ident) => {
                    let before = index.checked_sub(1).map(|before| &tokens[before]);
                    let after = tokens.get(index + 1);
                    // (`..pad`: a range's bound, not a field.)
                    let range_before =
                        index >= 2 && matches!(&tokens[index - 2], TokenTree::Punct(punct) if punct.as_char() == '.');
                    let is_path_part = !range_before
                        && matches!(before, Some(TokenTree::Punct(punct)) if punct.as_char() == '.' || punct.as_char() == ':')
                        || matches!(after, Some(TokenTree::Punct(punct)) if punct.as_char() == '!' || punct.as_char() == ':')
                        || matches!(after, Some(TokenTree::Group(group)) if group.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    // `name = value` at the start of an argument is a named argument or a
                    // field (`format_args!("{n}", n = n)`, tracing's `span!(.., n = n)`): the
                    // name is a key, not a mention.
                    let is_key = matches!(before, None | Some(TokenTree::Punct(_)))
                        && !matches!(before, Some(TokenTree::Punct(punct)) if punct.as_char() != ',' && punct.as_char() != ';')
                        && is_single_eq(tokens.get(index + 1), tokens.get(index + 2));
                    let name = ident.to_string();
                    if let Some(given) = &self.lending.given_self
                        && name == "self"
                        && !hidden(index, &name)
                    {
                        out.push(TokenTree::Ident(with_span(given, ident.span())));
                        continue;
                    }
                    match self.lookup(&name) {
                        Some(local) if !is_path_part && !is_key && !hidden(index, &name) => {
                            out.extend(self.lent_mention(local, ident.span()));
                        }
                        _ => out.push(token.clone()),
                    }
                }
                TokenTree::Group(group) if scopes.pattern[index] => out.push(TokenTree::Group(group.clone())),
                TokenTree::Group(group) => {
                    let mut inner = shadowed.clone();
                    inner.extend(scopes.shadowed[index].iter().cloned());
                    let stream = self.tokens_within(group.stream(), Fields::Sigils, &inner, scopes.arms[index]);
                    let mut new = proc_macro2::Group::new(group.delimiter(), stream);
                    new.set_span(group.span());
                    out.push(TokenTree::Group(new));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }
}

impl Places<'_> {
    /// The in-place locals a tracing or log macro's message captures inline (`"{req:?}"`),
    /// each once, with its place, unless the macro names the argument itself.
    pub(super) fn message_captures(&self, tokens: &TokenStream) -> Vec<(String, Ident)> {
        let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let at_argument_start = |index: usize| {
            index == 0 || matches!(&tokens[index - 1], TokenTree::Punct(punct) if punct.as_char() == ',')
        };
        let Some((message_at, message)) = (0..tokens.len()).find_map(|index| match &tokens[index] {
            TokenTree::Literal(literal) if at_argument_start(index) => {
                syn::parse2::<syn::LitStr>(TokenTree::Literal(literal.clone()).into()).ok().map(|lit| (index, lit))
            }
            _ => None,
        }) else {
            return Vec::new();
        };
        // The message's own named arguments (`"{n}", n = ..`) follow it; a `key = value` before
        // it is a field, which the format string cannot name.
        let named: HashSet<String> = (message_at + 1..tokens.len())
            .filter(|&index| at_argument_start(index) && is_single_eq(tokens.get(index + 1), tokens.get(index + 2)))
            .filter_map(|index| match &tokens[index] {
                TokenTree::Ident(ident) => Some(ident.to_string()),
                _ => None,
            })
            .collect();
        let mut found: Vec<(String, Ident)> = Vec::new();
        for (name, span) in std_macros::inline_captures(&message) {
            if named.contains(&name) || found.iter().any(|(known, _)| *known == name) {
                continue;
            }
            if let Some(local) = self.lookup(&name) {
                found.push((name, with_span(&local.ident, span)));
            }
        }
        found
    }

    /// `?value` or `%conn.peer` as a whole argument (tracing's field shorthand: a field named
    /// as the local, recorded with `Debug` or `Display`), with `value` living in place. No Rust
    /// expression starts with `?` or `%`, so such a macro wants an identifier there, which a
    /// place is not: written as the field it stands for, `value = ?(*value.get())`, under the
    /// name the user gave it. In a tracing macro's fields a bare `value` is such a shorthand
    /// too (`Fields::Named`). Returns the tokens and where the shorthand ends.
    pub(super) fn shorthand_field(
        &self,
        tokens: &[TokenTree],
        index: usize,
        fields: Fields,
    ) -> Option<(TokenStream, usize)> {
        let at_argument_start = match index.checked_sub(1).map(|before| &tokens[before]) {
            None => true,
            Some(TokenTree::Punct(punct)) => punct.as_char() == ',',
            Some(_) => false,
        };
        if !at_argument_start {
            return None;
        }
        let (sigil, name_at) = match &tokens[index] {
            TokenTree::Punct(sigil)
                if matches!(sigil.as_char(), '?' | '%') && sigil.spacing() == proc_macro2::Spacing::Alone =>
            {
                (Some(sigil), index + 1)
            }
            TokenTree::Ident(_) if fields == Fields::Named => (None, index),
            _ => return None,
        };
        let TokenTree::Ident(name) = tokens.get(name_at)? else { return None };
        let local = self.lookup(&name.to_string())?;
        // The dotted path that names the field (`conn.peer`), to the end of the argument.
        let mut end = name_at + 1;
        let mut members = Vec::new();
        while let (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(member))) = (tokens.get(end), tokens.get(end + 1))
        {
            if dot.as_char() != '.' || dot.spacing() != proc_macro2::Spacing::Alone {
                break;
            }
            members.push((dot.clone(), member.clone()));
            end += 2;
        }
        if !matches!(tokens.get(end), None | Some(TokenTree::Punct(_))) {
            return None;
        }
        if let Some(TokenTree::Punct(next)) = tokens.get(end)
            && next.as_char() != ','
        {
            return None;
        }
        let key_members = members.iter().map(|(dot, member)| quote!(#dot #member));
        let value_members = members.iter().map(|(dot, member)| quote!(#dot #member));
        let place = with_span(&local.ident, name.span());
        let lent = self.lend(&place, name.span());
        let field = quote_spanned!(name.span()=> #name #(#key_members)* = #sigil #lent #(#value_members)*);
        Some((field, end))
    }
}

/// Which of a macro's arguments may be field shorthands that want the user's name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Fields {
    /// `?value` and `%value`, in any macro (no expression starts so).
    Sigils,
    /// Those, and a bare `value`: the fields of one of tracing's macros, before the message.
    Named,
}

/// How many mentions of each local the statement being rewritten makes from the current
/// point on (`Lending::mentions_here`): a macro is lent a value only where it makes the last.
impl Places<'_> {
    pub(super) fn count_mentions(&mut self, found: Vec<mentions::Mention>) {
        self.lending.mentions_here.clear();
        for mention in found {
            *self.lending.mentions_here.entry(mention_name(mention)).or_default() += 1;
        }
    }

    /// A mention of `name` rewritten: it is evaluated before a macro after it in the statement
    /// runs, which may then be lent the value (`lent_by_value`) if no mention follows it.
    pub(super) fn mention_evaluated(&mut self, name: &str) {
        if let Some(count) = self.lending.mentions_here.get_mut(name) {
            *count = count.saturating_sub(1);
        }
    }

    /// Where code forks into paths that never both run (the branches of an `if`, the arms of
    /// a `match`, each path's mentions given): the count as it stands before them.
    pub(super) fn fork(&self, paths: Vec<Vec<mentions::Mention>>) -> Fork {
        let paths = paths.into_iter().map(|mentions| mentions.into_iter().map(mention_name).collect()).collect();
        Fork { at_fork: self.lending.mentions_here.clone(), paths }
    }

    /// Before the code of path `index` of `fork` is rewritten: what the other paths name is
    /// not still to come on it, so a macro there may be lent by value a local the others
    /// name too (`lent_by_value`).
    pub(super) fn enter_path(&mut self, fork: &Fork, index: usize) {
        let others = fork.paths.iter().enumerate().filter(|(other, _)| *other != index).map(|(_, names)| names);
        self.lending.mentions_here = fork.counted_without(others);
    }

    /// Once every path of `fork` is rewritten: what they name has run, or never will, before
    /// the code after them.
    pub(super) fn join(&mut self, fork: Fork) {
        self.lending.mentions_here = fork.counted_without(fork.paths.iter());
    }

    pub(super) fn block(&mut self, block: &mut syn::Block) {
        let mark = self.bound.len();
        // A statement of the block has run to its end before the next one begins: a macro
        // may be lent by value what those before it named (`{ let r = &v; } m!(v);`), where
        // a borrow still alive is the twin's error at the macro.
        let counted = self.lending.mentions_here.clone();
        let leaving = leaves_the_function(block);
        let leaving_before = self.lending.leaving_last_uses.clone();
        let taken = std::mem::take(&mut block.stmts);
        // For a block that leaves the function: what each statement's successors in it name.
        let mut named_after: Vec<HashSet<String>> = vec![HashSet::new(); taken.len()];
        if leaving {
            for index in (1..taken.len()).rev() {
                let mut named = named_after[index].clone();
                named.extend(mentions::of_stmt(&taken[index]).into_iter().map(mention_name));
                named_after[index - 1] = named;
            }
        }
        let mut stmts = Vec::with_capacity(taken.len());
        for (mut stmt, named_after) in taken.into_iter().zip(named_after) {
            if leaving {
                let unnamed = self.visible.keys().filter(|name| !named_after.contains(*name)).cloned();
                self.lending.leaving_last_uses = leaving_before.iter().cloned().chain(unnamed).collect();
            }
            let ran = mentions::of_stmt(&stmt);
            // (The mentions the statement's rewriting counted as evaluated are counted again
            // below, all of them, once the statement has run.)
            let before = self.lending.mentions_here.clone();
            // What a macro statement gives back after it (`given_back`).
            let mut given_back = None;
            if let syn::Stmt::Macro(node) = &mut stmt {
                // A macro statement lent values: they are taken by a `let` before it, so that
                // the locals the macro declares stay in scope after it.
                let (lent, after) = self.lent_macro_around(&mut node.mac, true, node.semi_token.is_some());
                if !lent.is_empty() {
                    stmts.push(syn::Stmt::Item(syn::Item::Verbatim(lent)));
                }
                given_back = (!after.is_empty()).then(|| syn::Stmt::Item(syn::Item::Verbatim(after)));
            } else {
                self.visit_stmt_mut(&mut stmt);
            }
            stmts.push(stmt);
            stmts.extend(given_back);
            self.lending.mentions_here = before;
            for mention in ran {
                self.mention_evaluated(&mention_name(mention));
            }
        }
        block.stmts = stmts;
        self.bound.truncate(mark);
        self.lending.mentions_here = counted;
        self.lending.leaving_last_uses = leaving_before;
    }
}

/// The count of mentions still to come where code forks (`Places::fork`), and the names each
/// path mentions.
pub(super) struct Fork {
    at_fork: HashMap<String, usize>,
    paths: Vec<Vec<String>>,
}

impl Fork {
    fn counted_without<'n>(&self, paths: impl Iterator<Item = &'n Vec<String>>) -> HashMap<String, usize> {
        let mut counted = self.at_fork.clone();
        for name in paths.flatten() {
            if let Some(count) = counted.get_mut(name) {
                *count = count.saturating_sub(1);
            }
        }
        counted
    }
}

/// The name a mention counts under (`self` for the receiver `emit` calls `__self`).
fn mention_name(mention: mentions::Mention) -> String {
    mentions::written_name(&mention.name).to_owned()
}

/// The reference through which a macro is lent `place` (hygienic: no name of the user's can
/// meet it).
/// The reborrow of a lent reference that a macro is handed for a local declared a reference.
fn reborrow_binding(place: &Ident, span: Span) -> Ident {
    Ident::new(
        &format!("__reborrow_{}", place.to_string().trim_start_matches("r#")),
        Span::mixed_site().located_at(span),
    )
}

/// The binding that holds the receiver's value while a macro has it (`given_back`), which
/// `self` among the macro's tokens names.
fn given_self_binding() -> Ident {
    Ident::new("__given_self", Span::mixed_site())
}

fn lent_binding(place: &Ident, span: Span) -> Ident {
    Ident::new(&format!("__lent_{}", place.to_string().trim_start_matches("r#")), Span::mixed_site().located_at(span))
}

/// Whether `tokens` name `name` where a value is moved, whatever its type: a whole element of
/// a tuple, array or call's arguments (`(self, lock)`, `f(lock)`), the value of a `let` or an
/// assignment, or of `return` or `break` (`= lock;`, `return lock`). A method call, a field,
/// `&`, a comparison or a macro's own token rule may only borrow it.
fn visibly_moved(tokens: &TokenStream, name: &str) -> bool {
    moved_in(tokens, name, false)
}

/// `visibly_moved` in one level of tokens: `listed` says they are a parenthesized or bracketed
/// list's (at the macro's own level, a bare argument is the macro rule's to use).
fn moved_in(tokens: &TokenStream, name: &str, listed: bool) -> bool {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let punct_at = |index: usize| match tokens.get(index) {
        Some(TokenTree::Punct(punct)) => Some(punct.as_char()),
        _ => None,
    };
    tokens.iter().enumerate().any(|(index, token)| match token {
        TokenTree::Ident(ident) if ident == name => {
            let before = index.checked_sub(1);
            let opens = match before.map(|before| &tokens[before]) {
                None => listed,
                Some(TokenTree::Punct(punct)) => match punct.as_char() {
                    ',' => listed,
                    // `= lock`, not `== lock`, `<= lock`, `!= lock`.
                    '=' => before
                        .and_then(|before| before.checked_sub(1))
                        .and_then(punct_at)
                        .is_none_or(|c| !"=<>!+-*/%&|^".contains(c)),
                    _ => false,
                },
                Some(TokenTree::Ident(word)) => word == "return" || word == "break",
                _ => false,
            };
            let closes = match tokens.get(index + 1) {
                None => true,
                Some(TokenTree::Punct(punct)) => punct.as_char() == ',' || punct.as_char() == ';',
                _ => false,
            };
            opens && closes
        }
        TokenTree::Group(group) => {
            let listed =
                matches!(group.delimiter(), proc_macro2::Delimiter::Parenthesis | proc_macro2::Delimiter::Bracket);
            moved_in(&group.stream(), name, listed)
        }
        _ => false,
    })
}

/// The arguments of a macro's tokens that are a single identifier (`self` in
/// `ok_or!(self.run().await, self)`), split at its top-level commas.
fn bare_arguments(tokens: &TokenStream) -> Vec<String> {
    let mut arguments = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    for token in
        tokens.clone().into_iter().chain([TokenTree::Punct(proc_macro2::Punct::new(',', proc_macro2::Spacing::Alone))])
    {
        match &token {
            TokenTree::Punct(punct) if punct.as_char() == ',' => {
                if let [TokenTree::Ident(ident)] = current.as_slice() {
                    arguments.push(ident.to_string());
                }
                current.clear();
            }
            _ => current.push(token),
        }
    }
    arguments
}
