; rust.scm - mnemo's own extraction patterns for Rust, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; use a::b::{c, d as e}; parse.c expands the tree into one path per leaf
(use_declaration argument: (_) @import.rust)
; mod x; (a file module; an inline `mod x { }` is a definition only)
(mod_item name: (identifier) @import !body)

; definitions tags.scm leaves out
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(function_signature_item name: (identifier) @name) @definition.method

; Type::f(), module::f()
(call_expression
  function: (scoped_identifier name: (identifier) @name)) @reference.call

; impl Trait for Type
(impl_item trait: (_) @inherit type: (_) @inherit.owner)
