// RefJava.java - the reference resolver for Java calls: javac's own
// attribution (the JDK's compiler tree API, com.sun.source).
//
//   java RefJava.java ROOT FILE...   (FILE relative to ROOT; JDK 11 or later)
//
// Parses and attributes every .java file under ROOT in one compilation
// (dependencies are not on a class path: what they declare stays
// unresolved) and prints one JSON line per method call in each FILE: a
// MethodInvocation whose method is a name (f(x)) or a member select
// (a.b.f(x)), at the method's name, with the method javac binds it to:
//   ref "repo"      a method declared in a source file of ROOT (defs: the
//                   line of its name; why "dynamic: ..." when it is an
//                   interface's or an abstract method)
//   ref "external"  a method of the JDK or of any class file
//   ref "unknown"   javac could not bind it (a type from a dependency)
// this(...) and super(...) constructor calls are left out.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import java.io.*;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
import java.util.stream.*;
import javax.lang.model.element.*;
import javax.tools.*;

public class RefJava {
    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]).toAbsolutePath().normalize();
        Set<Path> want = new HashSet<>();
        for (int i = 1; i < args.length; i++) want.add(root.resolve(args[i]).normalize());
        List<File> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/.git/"))
                     .map(Path::toFile).sorted().collect(Collectors.toList());
        }
        JavaCompiler jc = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager fm = jc.getStandardFileManager(null, null, null);
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        List<String> opts = List.of("-proc:none", "-implicit:none", "-Xlint:none", "-nowarn",
                                    "-XDshould-stop.ifError=FLOW", "-Xmaxerrs", "0");
        JavacTask task = (JavacTask) jc.getTask(null, fm, diags, opts, null,
                                                fm.getJavaFileObjectsFromFiles(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        Trees trees = Trees.instance(task);
        SourcePositions sp = trees.getSourcePositions();
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        for (CompilationUnitTree cu : units) {
            Path p = Paths.get(cu.getSourceFile().toUri()).normalize();
            if (!want.contains(p)) continue;
            String rel = root.relativize(p).toString();
            LineMap lm = cu.getLineMap();
            new TreePathScanner<Void, Void>() {
                @Override
                public Void visitMethodInvocation(MethodInvocationTree node, Void v) {
                    ExpressionTree sel = node.getMethodSelect();
                    String name = null;
                    long pos = -1;
                    if (sel instanceof IdentifierTree) {
                        name = ((IdentifierTree) sel).getName().toString();
                        pos = sp.getStartPosition(cu, sel);
                    } else if (sel instanceof MemberSelectTree) {
                        name = ((MemberSelectTree) sel).getIdentifier().toString();
                        pos = sp.getEndPosition(cu, sel) - name.length();
                    }
                    if (name != null && pos >= 0 && !name.equals("this") && !name.equals("super")) {
                        long line = lm.getLineNumber(pos);
                        long col = pos - lm.getStartPosition(line);
                        String ref = "unknown", why = "not bound (a dependency's type?)", defs = "[]";
                        Element e = trees.getElement(new TreePath(getCurrentPath(), sel));
                        if (e instanceof ExecutableElement) {
                            TreePath dp = trees.getPath(e);
                            if (dp == null) {
                                ref = "external";
                                why = "";
                            } else {
                                CompilationUnitTree dcu = dp.getCompilationUnit();
                                Path dpath = Paths.get(dcu.getSourceFile().toUri()).normalize();
                                long start = sp.getStartPosition(dcu, dp.getLeaf());
                                long at = start;
                                try {
                                    CharSequence text = dcu.getSourceFile().getCharContent(true);
                                    Matcher m = Pattern.compile("\\b" + Pattern.quote(e.getSimpleName().toString()) + "\\s*[(<]")
                                                       .matcher(text);
                                    if (start >= 0 && m.find((int) start)) at = m.start();
                                } catch (IOException ex) {
                                    // keep the declaration's start
                                }
                                if (dpath.startsWith(root) && at >= 0) {
                                    ref = "repo";
                                    defs = "[[" + json(root.relativize(dpath).toString()) + ", "
                                           + dcu.getLineMap().getLineNumber(at) + "]]";
                                    Element owner = e.getEnclosingElement();
                                    boolean dyn = e.getModifiers().contains(Modifier.ABSTRACT)
                                                  || (owner != null && owner.getKind() == ElementKind.INTERFACE
                                                      && !e.getModifiers().contains(Modifier.STATIC)
                                                      && !e.getModifiers().contains(Modifier.DEFAULT));
                                    why = dyn ? "dynamic: an interface's or abstract method" : "";
                                } else {
                                    ref = "external";
                                    why = "";
                                }
                            }
                        }
                        out.println("{\"path\": " + json(rel) + ", \"line\": " + line + ", \"col\": " + col
                                    + ", \"name\": " + json(name) + ", \"ref\": \"" + ref + "\", \"defs\": "
                                    + defs + ", \"why\": " + json(why) + "}");
                    }
                    return super.visitMethodInvocation(node, v);
                }
            }.scan(cu, null);
        }
        out.flush();
        long errors = diags.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).count();
        System.err.println("RefJava: " + files.size() + " files, " + errors + " errors");
    }
}
