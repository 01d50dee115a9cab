/*
 * line_buffer: read a file line by line into a growable buffer, without a fixed
 * maximum line length. Used by the log scanner to handle very long JSON lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 128

/* A growable byte buffer; data is always NUL-terminated. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} LineBuffer;

/* Initialise an empty buffer. Returns 0 on success, -1 when out of memory. */
int line_buffer_init(LineBuffer *buf)
{
    buf->data = malloc(INITIAL_CAPACITY);
    if (buf->data == NULL)
        return -1;
    buf->data[0] = '\0';
    buf->len = 0;
    buf->cap = INITIAL_CAPACITY;
    return 0;
}

/* Double the capacity until at least `need` bytes fit. */
static int grow(LineBuffer *buf, size_t need)
{
    size_t cap = buf->cap;
    while (cap < need)
        cap *= 2;
    char *data = realloc(buf->data, cap);
    if (data == NULL)
        return -1;
    buf->data = data;
    buf->cap = cap;
    return 0;
}

/*
 * Read the next line from `fp` into `buf`, without the trailing newline.
 * Returns the line length, or -1 at end of file or on error.
 */
long line_buffer_read(LineBuffer *buf, FILE *fp)
{
    int c;
    buf->len = 0;
    while ((c = fgetc(fp)) != EOF && c != '\n') {
        if (buf->len + 2 > buf->cap && grow(buf, buf->len + 2) != 0)
            return -1;
        buf->data[buf->len++] = (char)c;
    }
    buf->data[buf->len] = '\0';
    if (c == EOF && buf->len == 0)
        return -1;
    return (long)buf->len;
}

void line_buffer_free(LineBuffer *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}
