#include <stdio.h>

#define MAX_LINE 256

/* A growable buffer. */
typedef struct {
    char *data;
    size_t len;
} Buffer;

/* Append one byte. */
int buffer_push(Buffer *buf, char c)
{
    buf->data[buf->len++] = c;
    return 0;
}

static const char *name(void) { return "buf"; }
