; cpp.scm - mnemo's own extraction patterns for C++, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; #include <x> / "x.h", kept with their delimiters
(preproc_include path: (_) @import.keep)

; definitions tags.scm leaves out
(namespace_definition name: (_) @name) @definition.module
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(union_specifier name: (type_identifier) @name body: (_)) @definition.class
(function_declarator declarator: (qualified_identifier) @name) @definition.method

; calls: f(), a::b::f(), s->f(), s.f()
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (qualified_identifier) @name) @reference.call
(call_expression
  function: (field_expression field: (field_identifier) @name)) @reference.call

; class A : public B, private ns::C<T>
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @inherit)
