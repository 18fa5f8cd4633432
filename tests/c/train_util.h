/*
 * train_util.h — what the trainer's C tests share: a small text, settings
 * for small shapes, a trainer made from them.
 */
#ifndef SP_TRAIN_UTIL_H
#define SP_TRAIN_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "train/train.h"

/* Genesis 1:1-10 (King James), one verse a line: 10 documents, the 10th
 * held out at holdout 10. */
static const char TU_TEXT[] =
    "In the beginning God created the heaven and the earth.\n"
    "And the earth was without form, and void; and darkness was upon the "
    "face of the deep. And the Spirit of God moved upon the face of the "
    "waters.\n"
    "And God said, Let there be light: and there was light.\n"
    "And God saw the light, that it was good: and God divided the light "
    "from the darkness.\n"
    "And God called the light Day, and the darkness he called Night. And "
    "the evening and the morning were the first day.\n"
    "And God said, Let there be a firmament in the midst of the waters, "
    "and let it divide the waters from the waters.\n"
    "And God made the firmament, and divided the waters which were under "
    "the firmament from the waters which were above the firmament: and it "
    "was so.\n"
    "And God called the firmament Heaven. And the evening and the morning "
    "were the second day.\n"
    "And God said, Let the waters under the heaven be gathered together "
    "unto one place, and let the dry land appear: and it was so.\n"
    "And God called the dry land Earth; and the gathering together of the "
    "waters called he Seas: and God saw that it was good.\n";

/* A small shape: 2 layers, grouped KV heads, a classifier of its own. */
static inline sp_train_config tu_small_config(void) {
    sp_train_config c;
    sp_train_config_default(&c);
    c.dim = 16;
    c.hidden = 24;
    c.layers = 2;
    c.heads = 4;
    c.kv_heads = 2;
    c.context = 12;
    c.batch = 3;
    c.steps = 20;
    c.warmup = 3;
    c.tied = 0;
    return c;
}

static inline sp_train *tu_trainer(const char *text, const sp_train_config *c,
                                   uint64_t seed, char *err) {
    return sp_train_new((const uint8_t *)text, strlen(text), NULL, 0, c, seed,
                        err);
}

#endif
