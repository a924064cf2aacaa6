; python.scm - mnemo's own extraction patterns for Python, run together with
; the grammar's queries/tags.scm (see src/index/parse.c for the capture names:
; @import* are imports, @inherit a base class, @definition.*/@name and
; @reference.call/@name follow tree-sitter's tagging convention).

; import a.b, import a.b as c
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))

; from x import y: the module as written ("..utils", "requests.adapters");
; parse.c adds ".y" targets when x is only dots (from . import y).
(import_from_statement) @import.from

; class C(Base, mod.Mixin, metaclass=M): the positional bases
(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @inherit))
