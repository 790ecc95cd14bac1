/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cexpr: evaluate the constant C expressions a tracefs "format" file prints.
 *
 * A trace event's print fmt is its TP_printk() after the preprocessor: the
 * kernel's constants appear there as literals inside casts and parentheses,
 * e.g. the gfp table's "(( gfp_t)(0x400u|0x800u)) & ~(( gfp_t)0x400u)" or
 * mm_page_alloc_extfrag's pageblock_order
 * "(((unsigned int)((21 - 12))) < ((unsigned int)(11 - 1)) ? ... : ...)".
 * Reading them there gives the running kernel's own values, where a table
 * compiled into fpusoakd would be right for one kernel at a time.
 *
 * Grammar: literals (decimal, 0x hex, u/U/l/L suffixes), casts to a type
 * made of identifiers ("(unsigned long)", "( gfp_t)"), parentheses, unary
 * ~ ! -, binary * / % + - << >> < <= > >= == != & ^ | && ||, and ?:, with
 * C's precedence, in 64-bit unsigned arithmetic.  Anything else (an
 * identifier outside a cast, REC->field, a call) makes the expression not
 * constant.  Depth is bounded: hostile input cannot exhaust the stack.
 */
#ifndef FPUSOAK_CEXPR_H
#define FPUSOAK_CEXPR_H

#include <stddef.h>
#include <stdint.h>

/* Evaluate all of buf[0..len) as one constant expression; 0 and *v, or -1. */
int cexpr_eval(const char *buf, size_t len, uint64_t *v);

/* In a format file, the argument printed by "NAME=%..." in its print fmt, as a span of buf; 0, or -1 if absent. */
int cexpr_print_arg(const char *buf, size_t len, const char *name, const char **arg, size_t *arglen);

#endif
