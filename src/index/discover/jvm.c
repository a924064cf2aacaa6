/*
 * jvm.c - Java and Kotlin: Maven (pom.xml, scanned as tags, and the mvnw
 * wrapper) and Gradle (build.gradle(.kts) and settings.gradle(.kts),
 * scanned line by line, and the gradlew wrapper).
 *
 * From pom.xml: the project's own artifactId, name and description (the
 * blocks of parent, dependencies, build, profiles... are blanked first, so
 * their artifactIds are not taken for the project's), the parent and the
 * dependencies' artifactIds (Spring Boot among them), <modules> as
 * workspaces, the Java release, and the packaging (jar: a library, war: a
 * web application, pom: a multi-module build). From Gradle: plugins (id,
 * apply plugin) and dependencies of the usual configurations, as
 * group:artifact:version -> artifact; the application and java-library
 * plugins; rootProject.name and include(...) as the name and workspaces.
 * Commands use the wrapper when the repository has one (./mvnw, ./gradlew),
 * else the installed tool.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"spring-boot*", "Spring Boot", "web"}, {"org-springframework-boot", "Spring Boot", "web"},
    {"spring-webmvc", "Spring MVC", "web"}, {"quarkus*", "Quarkus", "web"},
    {"micronaut*", "Micronaut", "web"},     {"hibernate-core", "Hibernate", "orm"},
    {"junit-jupiter*", "JUnit 5", "test"},  {"junit", "JUnit", "test"},
    {"mockito-core", "Mockito", "test"},    {"com-android-application", "Android", "mobile"},
};

static void scan_jvm(dx_ctx *d)
{
    mn_buf b = MN_BUF_INIT;
    bool mvnw = dx_have(d, "mvnw"), gradlew = dx_have(d, "gradlew");
    if (dx_load_text(d, "pom.xml", &b)) {
        const char *end = b.ptr + b.len;
        char *parent = dx_xml_text(b.ptr, end, "parent");
        char *own = mn_strdup(b.ptr);
        static const char *const blocks[] = {"parent",  "dependencies", "dependencyManagement",
                                             "build",   "profiles",     "reporting",
                                             "modules", "properties",   "distributionManagement"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(blocks); i++)
            dx_xml_blank(own, blocks[i]);
        const char *oend = own + strlen(own);
        char *aid = dx_xml_text(own, oend, "artifactId"), *nm = dx_xml_text(own, oend, "name");
        char *desc = dx_xml_text(own, oend, "description"),
             *pack = dx_xml_text(own, oend, "packaging");
        dx_set_name(d, aid, desc ? desc : nm, "pom.xml artifactId");
        const char *pa = parent ? strstr(b.ptr, "<parent>") : NULL;
        if (pa) {
            const char *pe = strstr(pa, "</parent>");
            char *paid = pe ? dx_xml_text(pa, pe, "artifactId") : NULL;
            if (paid)
                dx_see_dep(d, "java", paid, strlen(paid), "pom.xml <parent>");
            free(paid);
        }
        json_t *deps = json_array();
        for (const char *a = strstr(b.ptr, "<dependencies>"); a;
             a = strstr(a + 1, "<dependencies>")) {
            const char *e = strstr(a, "</dependencies>");
            if (!e)
                break;
            json_t *ids = dx_xml_all(a, e, "artifactId");
            size_t i;
            json_t *v;
            json_array_foreach(ids, i, v)
            {
                dx_add_unique(deps, json_string_value(v));
                dx_see_dep(d, "java", json_string_value(v), json_string_length(v), "pom.xml");
            }
            json_decref(ids);
        }
        dx_add_deps(d, "pom.xml", "runtime", deps);
        const char *ms = strstr(b.ptr, "<modules>"), *me = ms ? strstr(ms, "</modules>") : NULL;
        if (me) {
            json_t *mods = dx_xml_all(ms, me, "module");
            size_t i;
            json_t *v;
            json_array_foreach(mods, i, v)
                dx_add_workspace(d, json_string_value(v), "pom.xml <modules>");
            json_decref(mods);
        }
        static const char *const jv[] = {"maven.compiler.release", "maven.compiler.source",
                                         "java.version", "release"};
        for (size_t i = 0; i < MN_ARRAY_SIZE(jv); i++) {
            char *v = dx_xml_text(b.ptr, end, jv[i]);
            if (v) {
                mn_buf r = MN_BUF_INIT;
                mn_buf_printf(&r, "Java %s (pom.xml %s)", v, jv[i]);
                dx_add_unique(d->runtime, r.ptr);
                mn_buf_release(&r);
                free(v);
                break;
            }
        }
        const char *mvn = mvnw ? "./mvnw" : "mvn";
        mn_buf c = MN_BUF_INIT;
        dx_add_manager(d, "java", "Maven", "pom.xml", mvnw ? "./mvnw install" : "mvn install");
        mn_buf_printf(&c, "%s package", mvn);
        dx_add_cmd(d, CMD_BUILD, 50, c.ptr, "pom.xml", NULL);
        mn_buf_clear(&c);
        mn_buf_printf(&c, "%s test", mvn);
        dx_add_cmd(d, CMD_TEST, 50, c.ptr, "pom.xml", NULL);
        if (json_object_get(d->frameworks, "Spring Boot")) {
            mn_buf_clear(&c);
            mn_buf_printf(&c, "%s spring-boot:run", mvn);
            dx_add_cmd(d, CMD_RUN, 50, c.ptr, "pom.xml (Spring Boot)", NULL);
            dx_add_kv(d->types, "web service", "Spring Boot (pom.xml)");
        } else if (pack && !strcmp(pack, "war")) {
            dx_add_kv(d->types, "web application", "pom.xml packaging war");
        } else if (pack && !strcmp(pack, "pom")) {
            dx_add_kv(d->types, "multi-module build", "pom.xml packaging pom");
        } else {
            dx_add_kv(d->types, "library", "pom.xml packaging jar");
        }
        mn_buf_release(&c);
        free(parent);
        free(own);
        free(aid);
        free(nm);
        free(desc);
        free(pack);
    }
    static const char *const gradle[] = {"build.gradle.kts", "build.gradle"};
    for (size_t gi = 0; gi < MN_ARRAY_SIZE(gradle); gi++) {
        if (!dx_load_text(d, gradle[gi], &b))
            continue;
        json_t *deps = json_array();
        bool application = false, library = false;
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (dx_next_line(&p, end, &line, &n)) {
            char *l = mn_strndup(line, n), *s = l;
            while (*s == ' ' || *s == '\t')
                s++;
            static const char *const cfgs[] = {"implementation",      "api",
                                               "compileOnly",         "runtimeOnly",
                                               "testImplementation",  "testRuntimeOnly",
                                               "annotationProcessor", "kapt"};
            if (dx_starts(s, "id ") || dx_starts(s, "id(") || dx_starts(s, "apply plugin:")) {
                char *q = strpbrk(s, "'\"");
                char *e = q ? strchr(q + 1, *q) : NULL;
                if (e) {
                    dx_see_dep(d, "java", q + 1, (size_t)(e - q - 1), gradle[gi]);
                    if (!strncmp(q + 1, "application", 11) || strstr(q + 1, "springframework.boot"))
                        application = true;
                    if (!strncmp(q + 1, "java-library", 12))
                        library = true;
                }
            } else if (!strcmp(s, "application") || !strcmp(s, "`application`")) {
                application = true;
            } else if (!strcmp(s, "`java-library`") || !strcmp(s, "java-library")) {
                library = true;
            } else {
                for (size_t k = 0; k < MN_ARRAY_SIZE(cfgs); k++) {
                    size_t cl = strlen(cfgs[k]);
                    if (strncmp(s, cfgs[k], cl) || (s[cl] != ' ' && s[cl] != '('))
                        continue;
                    char *q = strpbrk(s + cl, "'\"");
                    char *e = q ? strchr(q + 1, *q) : NULL;
                    if (!e)
                        break;
                    /* group:artifact:version -> artifact */
                    char *coord = mn_strndup(q + 1, (size_t)(e - q - 1));
                    char *c1 = strchr(coord, ':');
                    if (c1) {
                        char *a = c1 + 1;
                        a[strcspn(a, ":")] = '\0';
                        dx_add_unique(deps, a);
                        dx_see_dep(d, "java", a, strlen(a), gradle[gi]);
                    }
                    free(coord);
                    break;
                }
            }
            free(l);
        }
        dx_add_deps(d, gradle[gi], "runtime", deps);
        const char *g = gradlew ? "./gradlew" : "gradle";
        mn_buf c = MN_BUF_INIT;
        dx_add_manager(d, "java", "Gradle", gradle[gi],
                       gradlew ? "./gradlew build" : "gradle build");
        mn_buf_printf(&c, "%s build", g);
        dx_add_cmd(d, CMD_BUILD, 50, c.ptr, gradle[gi], NULL);
        mn_buf_clear(&c);
        mn_buf_printf(&c, "%s test", g);
        dx_add_cmd(d, CMD_TEST, 50, c.ptr, gradle[gi], NULL);
        if (json_object_get(d->frameworks, "Spring Boot")) {
            mn_buf_clear(&c);
            mn_buf_printf(&c, "%s bootRun", g);
            dx_add_cmd(d, CMD_RUN, 50, c.ptr, gradle[gi], "Spring Boot");
            dx_add_kv(d->types, "web service", "Spring Boot plugin");
        } else if (application) {
            mn_buf_clear(&c);
            mn_buf_printf(&c, "%s run", g);
            dx_add_cmd(d, CMD_RUN, 50, c.ptr, gradle[gi], "application plugin");
            dx_add_kv(d->types, "application", "Gradle application plugin");
        }
        if (json_object_get(d->frameworks, "Android"))
            dx_add_kv(d->types, "Android app", "com.android.application plugin");
        if (library)
            dx_add_kv(d->types, "library", "Gradle java-library plugin");
        mn_buf_release(&c);
        break;
    }
    static const char *const settings[] = {"settings.gradle.kts", "settings.gradle"};
    for (size_t si = 0; si < MN_ARRAY_SIZE(settings); si++) {
        if (!dx_load_text(d, settings[si], &b))
            continue;
        const char *p = b.ptr, *end = b.ptr + b.len, *line;
        size_t n;
        while (dx_next_line(&p, end, &line, &n)) {
            char *l = mn_strndup(line, n), *s = l;
            while (*s == ' ' || *s == '\t')
                s++;
            if (dx_starts(s, "rootProject.name")) {
                char *q = strpbrk(s, "'\""), *e = q ? strchr(q + 1, *q) : NULL;
                if (e) {
                    *e = '\0';
                    dx_set_name(d, q + 1, NULL, settings[si]);
                }
            } else if (dx_starts(s, "include")) {
                for (char *q = strpbrk(s, "'\""); q; q = strpbrk(q + 1, "'\"")) {
                    char *e = strchr(q + 1, *q);
                    if (!e)
                        break;
                    *e = '\0';
                    char *m = q + 1;
                    while (*m == ':')
                        m++;
                    for (char *c = m; *c; c++)
                        if (*c == ':')
                            *c = '/';
                    if (*m)
                        dx_add_workspace(d, m, settings[si]);
                    q = e;
                }
            }
            free(l);
        }
        break;
    }
    mn_buf_release(&b);
}

/* A package of a monorepo (a Maven module): its own artifactId (Gradle builds are not read). */
static void jvm_package(dx_ctx *d, json_t *pkg, const char *m)
{
    if (strcmp(dx_base_name(m), "pom.xml"))
        return;
    mn_buf t = MN_BUF_INIT;
    if (dx_load_text(d, m, &t)) {
        dx_xml_blank(t.ptr, "parent");
        dx_xml_blank(t.ptr, "dependencies");
        dx_xml_blank(t.ptr, "build");
        char *a = dx_xml_text(t.ptr, t.ptr + strlen(t.ptr), "artifactId");
        if (a)
            json_object_set_new(pkg, "name", json_string(a));
        free(a);
    }
    mn_buf_release(&t);
}

const dx_ecosystem dx_jvm = {
    .name = "Java and Kotlin",
    .lang = "java",
    .deps = "java",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "pom.xml build.gradle build.gradle.kts",
    .scan = scan_jvm,
    .package = jvm_package,
};
