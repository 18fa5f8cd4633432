/*
 * ivec.h — 128 bits of integer lanes for the quantized dot products
 * (qdot.c): 16 bytes, 8 int16 or 4 int32 lanes, by the operation.
 *
 * Two backends, WebAssembly simd128 and x86 SSE2, with the same results:
 * every operation here is exact integer arithmetic (no lane ever
 * overflows for the ranges qdot.c feeds them: it says why at each use), so
 * the two cannot differ, and plain C (the scalar build) computes the same
 * integers with loops of its own.  The only float operation is
 * iv_i32_to_f32, an exact conversion for the |values| < 2^24 it is given.
 * No relaxed-SIMD instruction is used: their results may differ between
 * machines.
 */
#ifndef SP_IVEC_H
#define SP_IVEC_H

#include "kernels/vec4.h"

#if defined(__wasm_simd128__)
#define SP_IVEC 1
typedef v128_t ivec;
static inline ivec iv_load(const void *p) { return wasm_v128_load(p); }
static inline ivec iv_splat8(uint8_t x) { return wasm_u8x16_splat(x); }
static inline ivec iv_splat16(int16_t x) { return wasm_i16x8_splat(x); }
static inline ivec iv_zero(void) { return wasm_i32x4_splat(0); }
static inline ivec iv_and(ivec a, ivec b) { return wasm_v128_and(a, b); }
static inline ivec iv_or(ivec a, ivec b) { return wasm_v128_or(a, b); }
/* 16-bit lanes shifted by k (bits may cross a byte: the caller masks) */
static inline ivec iv_shr16(ivec a, int k) { return wasm_u16x8_shr(a, k); }
static inline ivec iv_shl16(ivec a, int k) { return wasm_i16x8_shl(a, k); }
static inline ivec iv_sub8(ivec a, ivec b) { return wasm_i8x16_sub(a, b); }
/* bytes 0-7 / 8-15 widened to eight int16, as signed or unsigned */
static inline ivec iv_i8_lo(ivec a) { return wasm_i16x8_extend_low_i8x16(a); }
static inline ivec iv_i8_hi(ivec a) { return wasm_i16x8_extend_high_i8x16(a); }
static inline ivec iv_u8_lo(ivec a) { return wasm_u16x8_extend_low_u8x16(a); }
static inline ivec iv_u8_hi(ivec a) { return wasm_u16x8_extend_high_u8x16(a); }
/* the low 16 bits of each int16 product */
static inline ivec iv_mul16(ivec a, ivec b) { return wasm_i16x8_mul(a, b); }
/* int32 lane l = a[2l] b[2l] + a[2l + 1] b[2l + 1] */
static inline ivec iv_dot16(ivec a, ivec b) { return wasm_i32x4_dot_i16x8(a, b); }
static inline ivec iv_add32(ivec a, ivec b) { return wasm_i32x4_add(a, b); }
/* the low 32 bits of each int32 product (exact for the products used) */
static inline ivec iv_mul32(ivec a, ivec b) { return wasm_i32x4_mul(a, b); }
static inline vec4 iv_i32_to_f32(ivec a) { return wasm_f32x4_convert_i32x4(a); }
/* uint16 lanes 0-3 / 4-7 widened to four uint32 */
static inline ivec iv_u16_lo(ivec a) { return wasm_u32x4_extend_low_u16x8(a); }
static inline ivec iv_u16_hi(ivec a) { return wasm_u32x4_extend_high_u16x8(a); }
static inline ivec iv_shl32(ivec a, int k) { return wasm_i32x4_shl(a, k); }
static inline ivec iv_splat32(int32_t x) { return wasm_i32x4_splat(x); }
static inline ivec iv_make32(int32_t a, int32_t b, int32_t c, int32_t d) {
    return wasm_i32x4_make(a, b, c, d);
}
/* the same 128 bits as four floats, and back */
static inline vec4 iv_as_f32(ivec a) { return a; }
static inline ivec iv_of_f32(vec4 a) { return a; }
static inline int32_t iv_hsum32(ivec a) {
    return wasm_i32x4_extract_lane(a, 0) + wasm_i32x4_extract_lane(a, 1) +
           wasm_i32x4_extract_lane(a, 2) + wasm_i32x4_extract_lane(a, 3);
}

#elif defined(__SSE2__)
#include <emmintrin.h>
#define SP_IVEC 1
typedef __m128i ivec;
static inline ivec iv_load(const void *p) {
    return _mm_loadu_si128((const __m128i *)p);
}
static inline ivec iv_splat8(uint8_t x) { return _mm_set1_epi8((char)x); }
static inline ivec iv_splat16(int16_t x) { return _mm_set1_epi16(x); }
static inline ivec iv_zero(void) { return _mm_setzero_si128(); }
static inline ivec iv_and(ivec a, ivec b) { return _mm_and_si128(a, b); }
static inline ivec iv_or(ivec a, ivec b) { return _mm_or_si128(a, b); }
static inline ivec iv_shr16(ivec a, int k) { return _mm_srli_epi16(a, k); }
static inline ivec iv_shl16(ivec a, int k) { return _mm_slli_epi16(a, k); }
static inline ivec iv_sub8(ivec a, ivec b) { return _mm_sub_epi8(a, b); }
/* SSE2 has no byte sign extension: each byte doubled into a 16-bit lane,
 * then shifted down arithmetically */
static inline ivec iv_i8_lo(ivec a) {
    return _mm_srai_epi16(_mm_unpacklo_epi8(a, a), 8);
}
static inline ivec iv_i8_hi(ivec a) {
    return _mm_srai_epi16(_mm_unpackhi_epi8(a, a), 8);
}
static inline ivec iv_u8_lo(ivec a) {
    return _mm_unpacklo_epi8(a, _mm_setzero_si128());
}
static inline ivec iv_u8_hi(ivec a) {
    return _mm_unpackhi_epi8(a, _mm_setzero_si128());
}
static inline ivec iv_mul16(ivec a, ivec b) { return _mm_mullo_epi16(a, b); }
static inline ivec iv_dot16(ivec a, ivec b) { return _mm_madd_epi16(a, b); }
static inline ivec iv_add32(ivec a, ivec b) { return _mm_add_epi32(a, b); }
/* SSE2 has no 32-bit multiply: lanes 0, 2 and 1, 3 as 64-bit products,
 * whose low 32 bits are the signed products' */
static inline ivec iv_mul32(ivec a, ivec b) {
    ivec even = _mm_mul_epu32(a, b);
    ivec odd = _mm_mul_epu32(_mm_srli_si128(a, 4), _mm_srli_si128(b, 4));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, 0x08),
                              _mm_shuffle_epi32(odd, 0x08));
}
static inline vec4 iv_i32_to_f32(ivec a) { return _mm_cvtepi32_ps(a); }
static inline ivec iv_u16_lo(ivec a) {
    return _mm_unpacklo_epi16(a, _mm_setzero_si128());
}
static inline ivec iv_u16_hi(ivec a) {
    return _mm_unpackhi_epi16(a, _mm_setzero_si128());
}
static inline ivec iv_shl32(ivec a, int k) { return _mm_slli_epi32(a, k); }
static inline ivec iv_splat32(int32_t x) { return _mm_set1_epi32(x); }
static inline ivec iv_make32(int32_t a, int32_t b, int32_t c, int32_t d) {
    return _mm_setr_epi32(a, b, c, d);
}
static inline vec4 iv_as_f32(ivec a) { return _mm_castsi128_ps(a); }
static inline ivec iv_of_f32(vec4 a) { return _mm_castps_si128(a); }
static inline int32_t iv_hsum32(ivec a) {
    ivec s = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0x4E)); /* 2 3 0 1 */
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));      /* 1 0 3 2 */
    return _mm_cvtsi128_si32(s);
}

#else
#define SP_IVEC 0 /* plain C: qdot.c's loops */
#endif

#endif /* SP_IVEC_H */
