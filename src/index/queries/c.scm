; c.scm - mnemo's own extraction patterns for C, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; #include <x.h> / "x.h", kept with their delimiters
(preproc_include path: (_) @import.keep)

; macros: function-like ones, and object-like ones with a value (constants;
; include guards have none)
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(union_specifier name: (type_identifier) @name body: (_)) @definition.class

; calls: f(), s->f(), s.f()
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression field: (field_identifier) @name)) @reference.call
