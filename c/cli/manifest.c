/*
 * manifest.c — reads models/manifest.json: {"models": [{"name": ...,
 * "file": ..., "tokenizer": ... | null, "draft_of": ... | null, ...}, ...]}.
 * A reader of that shape only (objects, arrays, strings, null, true,
 * false, numbers); keys it does not use are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

#include "host.h"
#include "manifest.h"

static sp_shipped shipped[SP_SHIPPED_MAX];
static int n_shipped = -1; /* -1: not read yet */

typedef struct {
    const char *p, *end;
} reader;

static void skip_ws(reader *r) {
    while (r->p < r->end && strchr(" \t\r\n", *r->p)) r->p++;
}

/* a string into out[cap] (cut to fit); 0 if none is here */
static int read_string(reader *r, char *out, size_t cap) {
    skip_ws(r);
    if (r->p >= r->end || *r->p != '"') return 0;
    size_t n = 0;
    for (r->p++; r->p < r->end && *r->p != '"'; r->p++) {
        char c = *r->p;
        if (c == '\\' && r->p + 1 < r->end) c = *++r->p; /* \" \\ \/ */
        if (n + 1 < cap) out[n++] = c;
    }
    if (cap) out[n] = '\0';
    if (r->p >= r->end) return 0;
    r->p++;
    return 1;
}

/* skips one value of any kind; 0 on a malformed one */
static int skip_value(reader *r) {
    skip_ws(r);
    if (r->p >= r->end) return 0;
    if (*r->p == '"') return read_string(r, NULL, 0);
    if (*r->p == '{' || *r->p == '[') {
        char close = *r->p == '{' ? '}' : ']';
        r->p++;
        for (;;) {
            skip_ws(r);
            if (r->p < r->end && *r->p == close) {
                r->p++;
                return 1;
            }
            if (close == '}') { /* a key and its colon */
                if (!read_string(r, NULL, 0)) return 0;
                skip_ws(r);
                if (r->p >= r->end || *r->p++ != ':') return 0;
            }
            if (!skip_value(r)) return 0;
            skip_ws(r);
            if (r->p < r->end && *r->p == ',') r->p++;
        }
    }
    while (r->p < r->end && !strchr(",}] \t\r\n", *r->p)) r->p++; /* a word */
    return 1;
}

/* one model's object */
static int read_model(reader *r, sp_shipped *m) {
    memset(m, 0, sizeof *m);
    skip_ws(r);
    if (r->p >= r->end || *r->p++ != '{') return 0;
    for (;;) {
        skip_ws(r);
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            return m->name[0] && m->file[0];
        }
        char key[32];
        if (!read_string(r, key, sizeof key)) return 0;
        skip_ws(r);
        if (r->p >= r->end || *r->p++ != ':') return 0;
        char *into = !strcmp(key, "name")        ? m->name
                     : !strcmp(key, "file")      ? m->file
                     : !strcmp(key, "tokenizer") ? m->tokenizer
                     : !strcmp(key, "draft_of")  ? m->draft_of
                                                 : NULL;
        size_t cap = !strcmp(key, "file") || !strcmp(key, "tokenizer") ? 64 : 32;
        skip_ws(r);
        if (into && r->p < r->end && *r->p == '"') {
            if (!read_string(r, into, cap)) return 0;
        } else if (!skip_value(r)) {
            return 0;
        }
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') r->p++;
    }
}

static void read_manifest(void) {
    n_shipped = 0;
    char path[1024], err[SP_ERR_LEN];
    snprintf(path, sizeof path, "%s/manifest.json", sp_host_models_dir());
    size_t size;
    uint8_t *data = sp_host_read_file(path, &size, err);
    if (!data) return;
    reader r = {(const char *)data, (const char *)data + size};
    const char *models = NULL;
    for (const char *p = r.p; p + 8 <= r.end && !models; p++)
        if (!memcmp(p, "\"models\"", 8)) models = p + 8;
    if (models) {
        r.p = models;
        skip_ws(&r);
        if (r.p < r.end && *r.p == ':') r.p++;
        skip_ws(&r);
        if (r.p < r.end && *r.p == '[') {
            r.p++;
            for (;;) {
                skip_ws(&r);
                if (r.p >= r.end || *r.p == ']') break;
                if (n_shipped == SP_SHIPPED_MAX ||
                    !read_model(&r, &shipped[n_shipped]))
                    break;
                n_shipped++;
                skip_ws(&r);
                if (r.p < r.end && *r.p == ',') r.p++;
            }
        }
    }
    free(data);
}

const sp_shipped *sp_manifest(int *n) {
    if (n_shipped < 0) read_manifest();
    *n = n_shipped;
    return shipped;
}

const sp_shipped *sp_manifest_find(const char *name) {
    int n;
    const sp_shipped *m = sp_manifest(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(m[i].name, name)) return &m[i];
    return NULL;
}
