//! The nesting of the code being written (levels of braces) and of the user's scopes (the
//! locals each declares, the names it hides), opened and closed as the walk goes.

use super::*;

impl<'a> Emitter<'a> {
    pub(super) fn push_level(&mut self, head: TokenStream) {
        self.states.segment.levels.push(Level::new(head, TokenStream::new()));
    }

    pub(super) fn pop_level(&mut self) {
        let level = self.states.segment.levels.pop().expect("a level is open");
        let code = self.close_level(level);
        self.emit(code);
    }

    /// A level's code as a block: `head { body }`; for a block whose code ends in its tail's
    /// value (`plain_value`), that block handed to where the value goes, spanned as the user's
    /// block. Rust drops a tail's temporaries at the end of the statement around the block
    /// before edition 2024, and before the block's locals from 2024, by the block's edition:
    /// `slot = Some({ .. locals ..; tail });`, `let value = { .. }; return Poll::Ready(value);`
    /// keep both orders (and drop them before the parameters, as the plain `async fn` does).
    pub(super) fn close_level(&mut self, mut level: Level) -> TokenStream {
        let head = std::mem::take(&mut level.head);
        let tail = level.tail.take();
        let body = level.code();
        let Some((sink, span)) = tail else { return quote!(#head { #body }) };
        let block = quote_spanned!(span=> #head { #body });
        match sink {
            Sink::Discard => quote!(#block;),
            Sink::Assign(var, _, declared) => self.sink_code(var, declared.as_deref(), block, span),
            Sink::Return => {
                let value = Ident::new("__lowering_value", Span::mixed_site());
                // Of the result type, so that the value is coerced to it as the plain function's
                // tail is (`Ok(Box::new(upload))` to `Result<Box<dyn Debug>, _>`).
                let ty = self.config.result_type.as_ref().map(|ty| quote!(: #ty));
                quote! {
                    let #value #ty = #block;
                    return ::core::task::Poll::Ready(#value);
                }
            }
        }
    }

    pub(super) fn push_scope(&mut self, head: TokenStream, unsafety: bool) {
        self.scopes.push(Scope { vars: Vec::new(), unsafety, renamed: Vec::new() });
        self.push_level(head);
    }

    pub(super) fn pop_scope(&mut self) {
        let scope = self.end_scope();
        self.unshadow(scope);
        self.pop_level();
    }

    /// The innermost scope ends for the walk; the code that leaves it (the jump to a merge
    /// point, a loop head or exit) still runs where its hidden names are in effect, so the
    /// caller gives them back (`unshadow`) after that code.
    pub(super) fn end_scope(&mut self) -> Scope {
        self.scopes.pop().expect("a scope is open")
    }

    /// The locals a scope's bindings hid are visible under their own names again.
    pub(super) fn unshadow(&mut self, scope: Scope) {
        for (id, name) in scope.renamed.into_iter().rev() {
            self.vars[id].name = name;
            self.vars[id].walk.hidden = false;
        }
    }

    /// Back to the states of a snapshot (variables declared since keep theirs).
    pub(super) fn restore_init(&mut self, snapshot: &[Init]) {
        self.init[..snapshot.len()].copy_from_slice(snapshot);
    }
}
