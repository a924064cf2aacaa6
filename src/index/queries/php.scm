; php.scm - mnemo's own extraction patterns for PHP, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; use A\B\C; use A\{B, C as D}; parse.c expands groups
(namespace_use_declaration) @import.php

; require/include 'x.php' (also __DIR__ . '/x.php': the literal part)
(require_expression [(string) (encapsed_string)] @import)
(require_once_expression [(string) (encapsed_string)] @import)
(include_expression [(string) (encapsed_string)] @import)
(include_once_expression [(string) (encapsed_string)] @import)
(require_expression (binary_expression right: [(string) (encapsed_string)] @import))
(require_once_expression (binary_expression right: [(string) (encapsed_string)] @import))
(include_expression (binary_expression right: [(string) (encapsed_string)] @import))
(include_once_expression (binary_expression right: [(string) (encapsed_string)] @import))

; definitions and calls tags.scm leaves out
(enum_declaration name: (name) @name) @definition.enum
(function_call_expression function: (name) @name) @reference.call

; extends, implements, and traits a class uses
(base_clause [(name) (qualified_name)] @inherit)
(class_interface_clause [(name) (qualified_name)] @inherit)
(declaration_list (use_declaration [(name) (qualified_name)] @inherit))
