/*
 * manifest.h — the shipped models, as models/manifest.json lists them (the
 * one list the CLI, the Worker, the page, links and drafts read).  The CLI
 * reads it from the models directory (sp_host_models_dir) when a name
 * needs it.
 */
#ifndef SP_CLI_MANIFEST_H
#define SP_CLI_MANIFEST_H

#define SP_SHIPPED_MAX 16

typedef struct {
    char name[32];      /* what --model says */
    char file[64];      /* in the models directory */
    char tokenizer[64]; /* its tokenizer there, "" if it carries its own */
    char draft_of[32];  /* a draft in that model's vocabulary, "" if not */
} sp_shipped;

/* The shipped models in the manifest's order; *n 0 when the models
 * directory has no readable manifest. */
const sp_shipped *sp_manifest(int *n);
/* The shipped model called name, or NULL. */
const sp_shipped *sp_manifest_find(const char *name);

#endif /* SP_CLI_MANIFEST_H */
