//! Closures and async blocks that name locals kept in place: what they take when they are made
//! (whole locals, fields, the copies or borrows rustc chooses) and what they reach through
//! places when they run.

use super::*;
use crate::classic::generate::captures::TakenField;

/// The fields `captures` holds, grouped by the binding that holds them (a tuple holds
/// several; `captures::holders` writes a binding's fields next to each other).
fn by_holder(captures: &[TakenField]) -> impl Iterator<Item = &[TakenField]> {
    captures.chunk_by(|a, b| a.holder == b.holder)
}

/// How many bindings `captures` are held in.
fn holder_count(captures: &[TakenField]) -> usize {
    by_holder(captures).count()
}

impl Places<'_> {
    /// `expr` as the code that took fields first names it: `__captured0.c` for `v.b.c` when
    /// `v.b` was taken into `__captured0`, unless a binding inside hides `v` there.
    pub(super) fn taken_field(&self, expr: &syn::Expr) -> Option<syn::Expr> {
        if self.captures.taken_fields.is_empty() {
            return None;
        }
        let (root, members) = captures::field_chain(expr)?;
        self.lookup(&root)?;
        let taken = self.captures.taken_fields.iter().find(|taken| {
            taken.local == root && members.len() >= taken.members.len() && members.starts_with(&taken.members)
        })?;
        let rest = &members[taken.members.len()..];
        let span = expr.span();
        let holder = taken.named_at(span);
        Some(syn::parse_quote_spanned!(span=> #holder #(.#rest)*))
    }

    pub(super) fn with_taken_fields(&mut self, taken: &[TakenField], f: impl FnOnce(&mut Self)) {
        let mark = self.captures.taken_fields.len();
        self.captures.taken_fields.extend(taken.iter().cloned());
        f(self);
        self.captures.taken_fields.truncate(mark);
    }

    pub(super) fn with_bound(&mut self, names: Vec<String>, f: impl FnOnce(&mut Self)) {
        let mark = self.bound.len();
        self.bound.extend(names);
        f(self);
        self.bound.truncate(mark);
    }

    /// The visible locals a closure or async block (`expr`) mentions, not counting names its
    /// parameters or its own `let`s bind (a `let` inside that hides an outer local captures
    /// nothing), and whether it mentions other locals of the function too.
    pub(super) fn captured(&self, expr: &syn::Expr) -> (Vec<String>, bool) {
        let mut places = Vec::new();
        let mut others = false;
        for mention in mentions::of_expr(expr) {
            let name = mentions::written_name(&mention.name).to_owned();
            if self.bound.contains(&name) {
                // A local of the code around it (one an enclosing async block took by value,
                // a `let` of an enclosing block): captured as rustc captures it, so the code
                // must not become `move`.
                others = true;
                continue;
            }
            if self.visible.contains_key(&name) {
                if !places.contains(&name) {
                    places.push(name);
                }
            } else if self.others.contains(&name) {
                others = true;
            }
        }
        (places, others)
    }

    /// A closure or async block: the visible locals it captures, or `None` when it captures
    /// none.
    pub(super) fn capturing(&self, expr: &syn::Expr) -> Option<(Vec<String>, bool)> {
        let (captured, others) = self.captured(expr);
        (!captured.is_empty()).then_some((captured, others))
    }

    /// A closure or async block (`expr`) that names visible locals: a `move` one takes them
    /// (`moved_into`); another takes what it uses by value when it is made, as Rust's closure
    /// captures it (a whole local, a field, or, for one it also assigns, what rustc picks:
    /// `chosen_captures`), and reaches the rest through places.
    pub(super) fn code_made(&mut self, expr: &mut syn::Expr) {
        let own_run = std::mem::take(&mut self.lending.runs_where_made);
        let Some((captured, others)) = self.capturing(expr) else { return };
        let moves = match expr {
            syn::Expr::Closure(node) => node.capture.is_some(),
            syn::Expr::Async(node) => node.capture.is_some(),
            _ => return,
        };
        if moves {
            self.moved_into(expr, &captured);
            return;
        }
        let original = expr.clone();
        self.lending.runs_where_made = own_run;
        let (moved, fields) = self.moves_inside(|this| this.code_body(expr, others));
        // One it also assigns (`v = ..`, `v += ..`), Rust's closure borrows mutably if it is
        // `Copy` and takes otherwise: rustc picks (`chosen`).
        let assigned = assigned_in(&original);
        let (chosen, moved): (Vec<String>, Vec<String>) = moved.into_iter().partition(|name| assigned.contains(name));
        let captures = self.fields_to_capture(&original, fields, &moved, &assigned);
        if (moved.is_empty() && captures.is_empty() && chosen.is_empty()) || others {
            return;
        }
        *expr = original;
        self.lending.runs_where_made = own_run;
        self.with_taken_fields(&captures, |this| this.with_bound(moved.clone(), |this| this.code_body(expr, false)));
        let chosen = self.chosen_captures(&chosen);
        let places = Self::chosen_places(&chosen);
        match expr {
            syn::Expr::Closure(node) => {
                let body = &node.body;
                *node.body = syn::parse2(quote!({ #places #body })).expect("a block");
            }
            syn::Expr::Async(node) => node.block.stmts.insert(0, syn::Stmt::Item(syn::Item::Verbatim(places))),
            _ => {}
        }
        self.taken_first(expr, &moved, &captures, &chosen);
    }

    fn code_body(&mut self, expr: &mut syn::Expr, others: bool) {
        match expr {
            syn::Expr::Closure(node) => self.closure(node, others),
            syn::Expr::Async(node) => self.async_block(node, others),
            _ => {}
        }
    }

    /// A `move` closure or async block: it takes the values of the places it names when it
    /// is made, as the plain closure would take the locals; of a local it names only through
    /// fields, those fields alone (`move || v.0` takes `v.0`, as edition 2021 captures, and
    /// the rest of `v` stays in place, to drop where its scope ends).
    pub(super) fn moved_into(&mut self, expr: &mut syn::Expr, captured: &[String]) {
        // A field the code around took first (`captures`) is that code's binding here, which
        // the `move` takes as it takes any local: neither it nor its local is taken again.
        let taken_around = |local: &String, members: &[syn::Member]| {
            self.captures.taken_fields.iter().any(|taken| taken.local == *local && members.starts_with(&taken.members))
        };
        let paths = syntax::moved_paths(expr, captured);
        let around =
            paths.iter().any(|(local, path)| path.as_ref().is_some_and(|members| taken_around(local, members)));
        let whole: Vec<String> =
            paths.iter().filter(|(_, path)| path.is_none()).map(|(local, _)| local.clone()).collect();
        let fields: Vec<(String, Vec<syn::Member>)> = paths
            .into_iter()
            .filter_map(|(local, path)| path.map(|path| (local, path)))
            .filter(|(local, members)| self.lookup(local).is_some() && !taken_around(local, members))
            .collect();
        if fields.is_empty() && !around {
            let prelude = self.capture_values(captured);
            let span = expr.span();
            // A block the rewriters after this one see into (`self` inside it becomes the
            // local that holds it there).
            *expr = syn::parse2(quote_spanned!(span=> { #prelude #expr })).expect("a block");
            return;
        }
        let captures = captures::holders(fields, self.captures.hidden_captures);
        self.captures.hidden_captures += holder_count(&captures);
        self.with_taken_fields(&captures, |this| {
            this.with_bound(whole.clone(), |this| match expr {
                syn::Expr::Closure(node) => this.closure(node, false),
                syn::Expr::Async(node) => this.async_block(node, false),
                _ => {}
            })
        });
        self.taken_first(expr, &whole, &captures, &[]);
    }

    /// The visible locals that code rewritten by `f` uses by value (whole), and the fields of
    /// visible locals it uses by value.
    #[allow(clippy::type_complexity)]
    pub(super) fn moves_inside(&mut self, f: impl FnOnce(&mut Self)) -> (Vec<String>, Vec<(String, Vec<syn::Member>)>) {
        let mark = self.captures.used_by_value.len();
        let fields_mark = self.captures.fields_by_value.len();
        f(self);
        let mut moved: Vec<String> = self.captures.used_by_value.drain(mark..).collect();
        moved.sort();
        moved.dedup();
        (moved, self.captures.fields_by_value.drain(fields_mark..).collect())
    }

    /// The fields a closure or async block (`code`) takes when it is made (`captures`): of
    /// the fields it uses by value, those of locals it neither takes whole (`moved`) nor
    /// assigns.
    pub(super) fn fields_to_capture(
        &mut self,
        code: &syn::Expr,
        fields: Vec<(String, Vec<syn::Member>)>,
        moved: &[String],
        assigned: &[String],
    ) -> Vec<TakenField> {
        let fields = fields
            .into_iter()
            .filter(|(local, _)| !moved.contains(local) && !assigned.contains(local) && self.lookup(local).is_some())
            .collect();
        let captures = captures::plan(code, fields, self.captures.hidden_captures);
        self.captures.hidden_captures += holder_count(&captures);
        captures
    }

    /// `{ let v = <v by value>; let __captured0 = <v.b by value>; <expr> }` for the locals in
    /// `moved` and the fields in `captures`.
    pub(super) fn taken_first(
        &mut self,
        expr: &mut syn::Expr,
        moved: &[String],
        captures: &[TakenField],
        chosen: &[(Ident, Ident)],
    ) {
        let prelude = self.capture_values(moved);
        let krate = self.krate;
        let chosen = chosen.iter().map(|(hidden, local)| {
            let span = local.span();
            quote_spanned!(span=> let #hidden = (&#krate::__private::Capture(#local)).capture();)
        });
        let mut fields: Vec<TokenStream> = Vec::new();
        for held in by_holder(captures) {
            let values: Vec<syn::Expr> = held.iter().map(|field| self.taken_value(field)).collect();
            let taken = &held[0];
            let holder = &taken.holder;
            // `mut`, as the plain closure's capture of a field of a `mut` local is: the
            // code may change it (`self.errors.close()` in a `move` closure of `mut self`).
            // Of a local that is not `mut`, the twin refuses such a change.
            fields.push(match taken.element {
                Some(_) => quote!(#[allow(unused_mut)] let mut #holder = (#(#values,)*);),
                None => quote!(#[allow(unused_mut)] let mut #holder = #(#values)*;),
            });
        }
        let span = expr.span();
        *expr = syn::parse2(quote_spanned!(span=> { #prelude #(#fields)* #(#chosen)* #expr })).expect("a block");
    }

    /// The value of a field taken first: its path as user code writes it, rewritten as any
    /// use by value of it is.
    fn taken_value(&mut self, taken: &TakenField) -> syn::Expr {
        let span = self.visible[&taken.local].ident.span();
        let local: syn::Expr = if taken.local == "self" {
            syn::parse_quote_spanned!(span=> self)
        } else {
            let ident = syntax::ident_for(&taken.local, span);
            syn::parse_quote!(#ident)
        };
        let members = &taken.members;
        let mut field: syn::Expr = syn::parse_quote_spanned!(span=> #local #(.#members)*);
        self.value(&mut field);
        field
    }

    /// For each local in `chosen` (one a closure or async block both assigns and uses by
    /// value), the hidden name of what it captures of it (`lowering::__private::Captured`) and
    /// the local's own name, which the code binds to the place that capture gives.
    pub(super) fn chosen_captures(&mut self, chosen: &[String]) -> Vec<(Ident, Ident)> {
        chosen
            .iter()
            .map(|name| {
                let hidden = Ident::new(&format!("__captured{}", self.captures.hidden_captures), Span::mixed_site());
                self.captures.hidden_captures += 1;
                (hidden, self.visible[name].ident.clone())
            })
            .collect()
    }

    /// `let v = __captured0.place();`: where the code begins (each call of a closure, the first
    /// poll of an async block), the places of the locals it captured as `chosen_captures` says.
    pub(super) fn chosen_places(chosen: &[(Ident, Ident)]) -> TokenStream {
        chosen.iter().map(|(hidden, local)| quote!(let #local = #hidden.place();)).collect()
    }

    pub(super) fn closure(&mut self, node: &mut syn::ExprClosure, others: bool) {
        let names: Vec<String> = node.inputs.iter().flat_map(binding_names).collect();
        let own_run = std::mem::take(&mut self.lending.runs_where_made);
        self.deferred_unless(own_run, |this| this.with_bound(names, |this| this.value(&mut node.body)));
        if own_run {
            let run = own_run_anchor();
            let body = &node.body;
            *node.body = syn::parse2(quote!({ #run #body })).expect("a block");
        }
        if !others {
            // It captures places only, which are `Copy`: by value, so that it does not borrow
            // the code of the state that made it (it may be kept across an await).
            node.capture = Some(Default::default());
        }
    }

    pub(super) fn async_block(&mut self, node: &mut syn::ExprAsync, others: bool) {
        let own_run = std::mem::take(&mut self.lending.runs_where_made);
        self.deferred_unless(own_run, |this| this.block(&mut node.block));
        if own_run {
            node.block.stmts.insert(0, syn::Stmt::Item(syn::Item::Verbatim(own_run_anchor())));
        }
        if !others {
            node.capture = Some(Default::default());
        }
    }

    /// `let v = <v by value>;` for each local a `move` closure or async block takes.
    pub(super) fn capture_values(&self, captured: &[String]) -> TokenStream {
        captured
            .iter()
            .map(|name| {
                let ident = &self.visible[name].ident;
                let value = self.by_value(ident, ident.span());
                // Mutable as the local may be: the code that takes it mutates it where the user's
                // binding is `mut` (the twin rejects it anywhere else).
                quote!(#[allow(unused_mut)] let mut #ident = #value;)
            })
            .collect()
    }
}

/// A closure or async block written where it is (in parentheses or not): awaited or called
/// there, it runs and is gone before the statement ends.
pub(super) fn is_code_literal(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(node) => is_code_literal(&node.expr),
        syn::Expr::Group(node) => is_code_literal(&node.expr),
        syn::Expr::Async(_) | syn::Expr::Closure(_) => true,
        _ => false,
    }
}

/// An await's operand whose closure or async block runs where it is made: one written there,
/// or the lowering's own `__private::expansion(&cell, async { .. })` for a macro whose
/// expansion awaits (`parse::awaiting_expansions`), which polls the block where it is awaited
/// and drops it there.
pub(super) fn runs_where_awaited(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(node) => runs_where_awaited(&node.expr),
        syn::Expr::Group(node) => runs_where_awaited(&node.expr),
        syn::Expr::Call(call) => {
            let lowering_expansion = matches!(&*call.func, syn::Expr::Path(path)
                if path.path.segments.len() >= 2
                    && path.path.segments.iter().rev().take(2).map(|segment| segment.ident.to_string()).eq(["expansion", "__private"]));
            lowering_expansion && call.args.last().is_some_and(is_code_literal)
        }
        _ => is_code_literal(expr),
    }
}

/// The anchor of a closure or async block's own run (`Places::lend`): a local of its body,
/// under the name the lent places bound to `move_next`'s run use, which it hides there.
pub(super) fn own_run_anchor() -> TokenStream {
    let owner = Ident::new("this_run_of_the_block", Span::mixed_site());
    let run = Ident::new(LENT_RUN, Span::mixed_site());
    quote! {
        #[allow(unused_variables)]
        let #owner = ();
        #[allow(unused_variables)]
        let #run = &#owner;
    }
}
