/*
 * dotnet.c - the .NET ecosystem: solution files (*.sln) and project files
 * (*.csproj, *.fsproj, *.vbproj, at most 30, vendored ones left out),
 * scanned as tags: the Sdk attribute, OutputType, TargetFramework(s),
 * PackageReference includes, and the marks of a test project
 * (Microsoft.NET.Test.Sdk, IsTestProject).
 *
 * Each project adds its dependencies (as "test" for test projects); an Exe
 * or a Web SDK project is an entry point, and the first one gives
 * dotnet run --project <it>; others are libraries. The first project
 * names the project when nothing else did. With any project or solution,
 * NuGet (dotnet restore) is the package manager and dotnet build, test
 * (when a test project exists) and format are the commands.
 */
#include "common.h"

#include "index/discover/discover_internal.h"
#include "util/util.h"

static const dx_framework frameworks[] = {
    {"microsoft-aspnetcore*", "ASP.NET Core", "web"},
    {"microsoft-net-sdk-web", "ASP.NET Core", "web"},
    {"xunit", "xUnit", "test"},
    {"nunit", "NUnit", "test"},
    {"mstest-testframework", "MSTest", "test"},
    {"microsoft-entityframeworkcore*", "Entity Framework Core", "orm"},
};

static void scan_dotnet(dx_ctx *d)
{
    mn_buf b = MN_BUF_INIT;
    int projects = 0, tests = 0;
    const char *sln = dx_find_glob(d, "*.sln");
    const char *run_proj = NULL;
    for (size_t i = 0; i < d->files.len && projects < 30; i++) {
        const char *p = d->files.items[i].path;
        if (!(dx_ends(p, ".csproj") || dx_ends(p, ".fsproj") || dx_ends(p, ".vbproj")) ||
            d->files.items[i].role == MN_ROLE_VENDORED || !dx_load_text(d, p, &b))
            continue;
        projects++;
        const char *sdk = strstr(b.ptr, "<Project");
        char *sdkv = sdk ? dx_xml_attr(sdk, "Sdk") : NULL;
        char *out = dx_xml_text(b.ptr, b.ptr + b.len, "OutputType");
        char *tf = dx_xml_text(b.ptr, b.ptr + b.len, "TargetFramework");
        if (!tf)
            tf = dx_xml_text(b.ptr, b.ptr + b.len, "TargetFrameworks");
        bool is_test =
            strstr(b.ptr, "Microsoft.NET.Test.Sdk") || strstr(b.ptr, "<IsTestProject>true");
        json_t *deps = json_array();
        for (const char *a = strstr(b.ptr, "<PackageReference"); a;
             a = strstr(a + 1, "<PackageReference")) {
            char *inc = dx_xml_attr(a, "Include");
            if (inc) {
                dx_add_unique(deps, inc);
                dx_see_dep(d, "dotnet", inc, strlen(inc), p);
                free(inc);
            }
        }
        dx_add_deps(d, p, is_test ? "test" : "runtime", deps);
        if (sdkv)
            dx_see_dep(d, "dotnet", sdkv, strlen(sdkv), p);
        if (tf) {
            mn_buf r = MN_BUF_INIT;
            mn_buf_printf(&r, ".NET %s (%s)", tf, p);
            if (json_array_size(d->runtime) < 4)
                dx_add_unique(d->runtime, r.ptr);
            mn_buf_release(&r);
        }
        if (is_test) {
            tests++;
        } else if ((out && !strcmp(out, "Exe")) || (sdkv && strstr(sdkv, ".Web"))) {
            if (!run_proj) {
                run_proj = p;
                mn_buf c = MN_BUF_INIT;
                mn_buf_printf(&c, "dotnet run --project %s", p);
                dx_add_cmd(d, CMD_RUN, 50, c.ptr, p, NULL);
                mn_buf_release(&c);
            }
            dx_add_entry(d, p,
                         sdkv && strstr(sdkv, ".Web") ? "Sdk Microsoft.NET.Sdk.Web"
                                                      : "OutputType Exe");
            dx_add_kv(d->types, sdkv && strstr(sdkv, ".Web") ? "web service" : "application", p);
        } else {
            dx_add_kv(d->types, "library", p);
        }
        if (!d->name) {
            char *nm = mn_strndup(dx_base_name(p), strlen(dx_base_name(p)) - 7);
            dx_set_name(d, nm, NULL, p);
            free(nm);
        }
        free(sdkv);
        free(out);
        free(tf);
    }
    mn_buf_release(&b);
    if (!projects && !sln)
        return;
    dx_add_manager(d, "csharp", "NuGet (dotnet)", sln ? sln : "*.csproj", "dotnet restore");
    dx_add_cmd(d, CMD_BUILD, 50, "dotnet build", sln ? sln : "*.csproj", NULL);
    if (tests)
        dx_add_cmd(d, CMD_TEST, 50, "dotnet test", "a test project (Microsoft.NET.Test.Sdk)", NULL);
    dx_add_cmd(d, CMD_LINT, 35, "dotnet format --verify-no-changes", "dotnet SDK", NULL);
}

/* A package of a monorepo: a project file, named after itself. */
static void dotnet_package(dx_ctx *d, json_t *pkg, const char *manifest)
{
    MN_UNUSED(d);
    const char *b = dx_base_name(manifest);
    char *n = mn_strndup(b, strlen(b) - 7); /* ".csproj" and ".fsproj" */
    json_object_set_new(pkg, "name", json_string(n));
    free(n);
}

const dx_ecosystem dx_dotnet = {
    .name = ".NET",
    .lang = "csharp",
    .deps = "dotnet",
    .frameworks = frameworks,
    .nframeworks = MN_ARRAY_SIZE(frameworks),
    .manifests = "*.csproj *.fsproj",
    .entry_files = "Program.cs",
    .scan = scan_dotnet,
    .package = dotnet_package,
};
