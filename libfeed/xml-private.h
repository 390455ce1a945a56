/* libxml2 as libfeed runs it: without a word on stderr. */
#ifndef FEED_XML_PRIVATE_H
#define FEED_XML_PRIVATE_H

#include <libxml/globals.h>
#include <libxml/xmlerror.h>

/* The thread's generic error handler, kept while libfeed's is in place. */
typedef struct {
	xmlGenericErrorFunc func;
	void *ctx;
} FeedXmlQuiet;

static inline void
feed_xml_drop_error(void *ctx, const char *format, ...)
{
}

/*
 * libxml2's encoding converters and its input layer know no parser: they
 * report bytes that are not in the declared encoding ("encoding error :
 * input conversion failed") through the thread's generic error handler,
 * which prints them to stderr, where mpd-bridge's journal would get them
 * for every refresh of such a feed. libfeed prints nothing and reports
 * through the parser (the document stops there), so while libxml2 reads
 * for it they are dropped: call this before handing libxml2 input and
 * feed_xml_quiet_end() after, on the same thread. The handler is libxml2's
 * per-thread state, put back as it was; code of the caller's that libfeed
 * calls meanwhile runs with it put back too.
 */
static inline void
feed_xml_quiet_begin(FeedXmlQuiet *saved)
{
	saved->func = xmlGenericError;
	saved->ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(NULL, feed_xml_drop_error);
}

static inline void
feed_xml_quiet_end(const FeedXmlQuiet *saved)
{
	xmlSetGenericErrorFunc(saved->ctx, saved->func);
}

#endif
