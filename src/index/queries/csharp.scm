; csharp.scm - mnemo's own extraction patterns for C#, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; using A.B; using X = A.B; using static A.B;
(using_directive) @import.decl

; definitions tags.scm leaves out
(namespace_declaration name: (qualified_name) @name) @definition.module
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(constructor_declaration name: (identifier) @name) @definition.method

; calls without a receiver: F(x)
(invocation_expression function: (identifier) @name) @reference.call

; class A : B, IC<T>
(base_list (_) @inherit)
