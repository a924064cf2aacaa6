; java.scm - mnemo's own extraction patterns for Java, run with the grammar's
; tags.scm (capture names: src/index/parse.c).

; import a.b.C; import static a.b.C.m; import a.b.*;
(import_declaration) @import.decl

; definitions tags.scm leaves out
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.method

; extends / implements
(superclass (_) @inherit)
(super_interfaces (type_list (_) @inherit))
(extends_interfaces (type_list (_) @inherit))
