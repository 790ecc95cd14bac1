/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * xenstore: which Xen domain this is — the control domain (dom0) or a
 * guest (domU) — and its domain id, from /proc/xen/capabilities and the Xen
 * store.
 *
 * Wire format (Xen's public/io/xs_wire.h): a 16-byte header {type, req_id,
 * tx_id, len} (uint32 each, host order) and len bytes of payload.  XS_READ
 * of the relative path "domid" answers the asking domain's own id, as
 * decimal text without a NUL; a failure comes back as XS_ERROR with an
 * errno name ("ENOENT\0").  The parsers are pure over (buf, len); only
 * xs_query_domid touches a device.
 */
#ifndef FPUSOAK_XENSTORE_H
#define FPUSOAK_XENSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XS_HDR_LEN 16
#define XS_PAYLOAD_MAX 4096          /* XENSTORE_PAYLOAD_MAX */
#define XS_TYPE_READ 2
#define XS_TYPE_ERROR 16

/* An XS_READ request for path into buf; its length, or -1 if path is empty, has a NUL-free length over the payload limit, or buf is too small. */
ssize_t xs_read_request(uint32_t req_id, const char *path, void *buf, size_t cap);

/* One reply at the start of buf[0..len): 0 with the value in val (NUL-terminated, trailing NULs dropped) and *used = bytes consumed; -EAGAIN if more bytes are needed; -EPROTO if malformed, of another type or req_id; -ENOENT, -EACCES ... for an XS_ERROR; -EMSGSIZE if val is too small. */
int xs_parse_reply(const void *buf, size_t len, uint32_t req_id, char *val, size_t valcap, size_t *used);

/* A domain id as the store prints it: decimal 0..32752 (DOMID_FIRST_RESERVED - 1 is 0x7fef), no sign, no leading zero; 0 or -1. */
int xs_parse_domid(const char *s, size_t len, int64_t *out);

/* 1 if /proc/xen/capabilities text lists "control_d" (the control domain), else 0. */
int xen_caps_control_d(const char *buf, size_t len);

/* Ask the store through dev (/dev/xen/xenbus) for "domid", waiting at most timeout_ms; 0 with *domid, or -errno (-ETIMEDOUT when no store answers, as in a dom0 before xenstored runs). */
int xs_query_domid(const char *dev, int timeout_ms, int64_t *domid);

#endif
