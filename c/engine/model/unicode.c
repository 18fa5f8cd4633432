/*
 * unicode.c — UTF-8 in and out as llama.cpp does it, and code point classes
 * from the generated range table (unicode_table.c).
 */
#include "unicode.h"

int sp_unicode_classes(uint32_t cp) {
    /* the last range whose first code point is <= cp */
    int lo = 0, hi = sp_unicode_n_ranges - 1;
    if (cp < 0x80) return sp_unicode_ascii[cp];
    if (cp > 0x10ffff) return 0;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if ((sp_unicode_ranges[mid] >> 8) <= cp) lo = mid;
        else hi = mid - 1;
    }
    return (int)(sp_unicode_ranges[lo] & 0xff);
}

uint32_t sp_utf8_next(const char *s, size_t len, size_t *at) {
    const unsigned char *u = (const unsigned char *)s + *at;
    size_t left = len - *at;
    if (u[0] < 0x80) {
        *at += 1;
        return u[0];
    }
    /* the number of continuation bytes the lead byte asks for */
    int more = (u[0] & 0x40) == 0 ? -1 : (u[0] & 0x20) == 0 ? 1
             : (u[0] & 0x10) == 0 ? 2 : (u[0] & 0x08) == 0 ? 3 : -1;
    int ok = more > 0 && left > (size_t)more;
    for (int i = 1; ok && i <= more; i++) ok = (u[i] & 0xc0) == 0x80;
    if (!ok) {
        *at += 1;
        return 0xfffd;
    }
    uint32_t cp = u[0] & (0x7f >> (more + 1));
    for (int i = 1; i <= more; i++) cp = cp << 6 | (u[i] & 0x3f);
    *at += (size_t)more + 1;
    return cp;
}

int sp_utf8_put(uint32_t cp, char *out) {
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    if (cp <= 0x10ffff) {
        o[0] = (unsigned char)(0xf0 | cp >> 18);
        o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[3] = (unsigned char)(0x80 | (cp & 0x3f));
        return 4;
    }
    return 0;
}
