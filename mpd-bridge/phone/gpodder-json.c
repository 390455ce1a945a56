/* The gpodder API's JSON, both ways, with json-glib. */
#include "phone/gpodder-private.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* JSON writing */

static char *
to_json(JsonBuilder *builder)
{
	g_autoptr(JsonNode) root = json_builder_get_root(builder);

	return json_to_string(root, FALSE);
}

char *
bridge_gpodder_device_to_json(const char *caption)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "caption");
	json_builder_add_string_value(builder, caption);
	json_builder_set_member_name(builder, "type");
	json_builder_add_string_value(builder, "server");
	json_builder_end_object(builder);
	return to_json(builder);
}

static void
add_urls(JsonBuilder *builder, const char *name, const char *const *urls)
{
	json_builder_set_member_name(builder, name);
	json_builder_begin_array(builder);
	for (guint i = 0; urls != NULL && urls[i] != NULL; i++)
		json_builder_add_string_value(builder, urls[i]);
	json_builder_end_array(builder);
}

char *
bridge_gpodder_changes_to_json(const char *const *add,
                               const char *const *remove)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	add_urls(builder, "add", add);
	add_urls(builder, "remove", remove);
	json_builder_end_object(builder);
	return to_json(builder);
}

static void
add_seconds(JsonBuilder *builder, const char *name, gint64 seconds)
{
	json_builder_set_member_name(builder, name);
	json_builder_add_int_value(builder, seconds);
}

static void
add_action(JsonBuilder *builder, const BridgeGpodderAction *action,
           const char *device)
{
	g_autofree char *timestamp =
	        bridge_gpodder_format_time(action->timestamp);

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "podcast");
	json_builder_add_string_value(builder, action->podcast);
	json_builder_set_member_name(builder, "episode");
	json_builder_add_string_value(builder, action->episode);
	/* AntennaPod matches on the guid alone when there is one. */
	if (action->guid != NULL) {
		json_builder_set_member_name(builder, "guid");
		json_builder_add_string_value(builder, action->guid);
	}
	json_builder_set_member_name(builder, "action");
	json_builder_add_string_value(
	        builder, bridge_gpodder_action_kind_to_string(action->action));
	json_builder_set_member_name(builder, "timestamp");
	json_builder_add_string_value(builder, timestamp);
	json_builder_set_member_name(builder, "device");
	json_builder_add_string_value(
	        builder, action->device != NULL ? action->device : device);
	/* The API has positions for play alone; mygpo refuses them else. */
	if (action->action == BRIDGE_GPODDER_ACTION_PLAY) {
		if (action->started >= 0)
			add_seconds(builder, "started", action->started);
		if (action->position >= 0)
			add_seconds(builder, "position", action->position);
		if (action->total >= 0)
			add_seconds(builder, "total", action->total);
	}
	json_builder_end_object(builder);
}

char *
bridge_gpodder_actions_to_json(GPtrArray *actions, guint first, guint n,
                               const char *device)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_array(builder);
	for (guint i = first; i < first + n && i < actions->len; i++)
		add_action(builder, g_ptr_array_index(actions, i), device);
	json_builder_end_array(builder);
	return to_json(builder);
}

/* JSON reading */

static void
bad_answer(GError **error, const char *field, const char *what)
{
	g_set_error(error, BRIDGE_GPODDER_ERROR,
	            BRIDGE_GPODDER_ERROR_BAD_ANSWER,
	            "the answer's %s is not %s", field, what);
}

/* The root of @data, which must be a JSON object (or an array). */
static JsonNode *
parse(const char *data, gsize length, JsonNodeType type, GError **error)
{
	g_autoptr(JsonParser) parser = json_parser_new_immutable();
	g_autoptr(GError) local = NULL;
	JsonNode *root;

	if (length > G_MAXSSIZE ||
	    !json_parser_load_from_data(parser, data, (gssize)length, &local)) {
		g_set_error(error, BRIDGE_GPODDER_ERROR,
		            BRIDGE_GPODDER_ERROR_BAD_ANSWER,
		            "the answer is not JSON (%s)",
		            local != NULL ? local->message : "too large");
		return NULL;
	}
	root = json_parser_get_root(parser);
	if (root == NULL || json_node_get_node_type(root) != type) {
		bad_answer(error, "top level",
		           type == JSON_NODE_OBJECT ? "an object" : "an array");
		return NULL;
	}
	return json_node_ref(root);
}

/* The string that @node holds, or NULL when it holds something else. */
static const char *
node_string(JsonNode *node)
{
	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(node);
}

static gboolean
is_number(JsonNode *node)
{
	GType type;

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node))
		return FALSE;
	type = json_node_get_value_type(node);
	return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

/* A whole number of seconds; servers may write one as 12.0. */
static gint64
get_seconds(JsonNode *node)
{
	if (json_node_get_value_type(node) == G_TYPE_DOUBLE)
		return (gint64)CLAMP(json_node_get_double(node), -1.0, 1e15);
	return json_node_get_int(node);
}

static gboolean
read_timestamp(JsonObject *object, const char *field, gint64 *timestamp,
               GError **error)
{
	JsonNode *node = json_object_get_member(object, field);

	if (!is_number(node)) {
		bad_answer(error, field, "a number");
		return FALSE;
	}
	*timestamp = get_seconds(node);
	return TRUE;
}

/* The strings of @object's array @field; a missing array is empty. */
static GPtrArray *
read_urls(JsonObject *object, const char *field, GError **error)
{
	g_autoptr(GPtrArray) urls = g_ptr_array_new_with_free_func(g_free);
	JsonNode *node = json_object_get_member(object, field);
	JsonArray *array;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_steal_pointer(&urls);
	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		bad_answer(error, field, "an array");
		return NULL;
	}
	array = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		const char *url = node_string(json_array_get_element(array, i));

		if (url == NULL) {
			g_autofree char *name =
			        g_strdup_printf("%s[%u]", field, i);

			bad_answer(error, name, "a string");
			return NULL;
		}
		g_ptr_array_add(urls, g_strdup(url));
	}
	return g_steal_pointer(&urls);
}

BridgeGpodderSubscriptions *
bridge_gpodder_subscriptions_from_json(const char *data, gsize length,
                                       GError **error)
{
	g_autoptr(JsonNode) root = parse(data, length, JSON_NODE_OBJECT, error);
	g_autoptr(BridgeGpodderSubscriptions) subscriptions = NULL;
	JsonObject *object;

	if (root == NULL)
		return NULL;
	object = json_node_get_object(root);
	subscriptions = g_new0(BridgeGpodderSubscriptions, 1);
	subscriptions->add = read_urls(object, "add", error);
	if (subscriptions->add == NULL)
		return NULL;
	subscriptions->remove = read_urls(object, "remove", error);
	if (subscriptions->remove == NULL ||
	    !read_timestamp(object, "timestamp", &subscriptions->timestamp,
	                    error))
		return NULL;
	return g_steal_pointer(&subscriptions);
}

BridgeGpodderUploaded *
bridge_gpodder_uploaded_from_json(const char *data, gsize length,
                                  GError **error)
{
	g_autoptr(JsonNode) root = parse(data, length, JSON_NODE_OBJECT, error);
	g_autoptr(BridgeGpodderUploaded) uploaded = NULL;
	JsonObject *object;
	JsonNode *node;
	JsonArray *pairs;

	if (root == NULL)
		return NULL;
	object = json_node_get_object(root);
	uploaded = g_new0(BridgeGpodderUploaded, 1);
	uploaded->update_urls = g_ptr_array_new_with_free_func(
	        (GDestroyNotify)bridge_gpodder_url_update_free);
	if (!read_timestamp(object, "timestamp", &uploaded->timestamp, error))
		return NULL;
	node = json_object_get_member(object, "update_urls");
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return g_steal_pointer(&uploaded);
	if (!JSON_NODE_HOLDS_ARRAY(node)) {
		bad_answer(error, "update_urls", "an array");
		return NULL;
	}
	pairs = json_node_get_array(node);
	for (guint i = 0; i < json_array_get_length(pairs); i++) {
		JsonNode *pair = json_array_get_element(pairs, i);
		JsonArray *urls = JSON_NODE_HOLDS_ARRAY(pair)
		                          ? json_node_get_array(pair)
		                          : NULL;
		const char *old_url = NULL;
		const char *new_url = NULL;
		BridgeGpodderUrlUpdate *update;

		if (urls != NULL && json_array_get_length(urls) == 2) {
			old_url = node_string(json_array_get_element(urls, 0));
			new_url = node_string(json_array_get_element(urls, 1));
		}
		if (old_url == NULL || new_url == NULL) {
			g_autofree char *name =
			        g_strdup_printf("update_urls[%u]", i);

			bad_answer(error, name, "a pair of URLs");
			return NULL;
		}
		/* mygpo lists URLs it could not clean up as "": kept. */
		if (*new_url == '\0' || strcmp(old_url, new_url) == 0)
			continue;
		update = g_new0(BridgeGpodderUrlUpdate, 1);
		update->old_url = g_strdup(old_url);
		update->new_url = g_strdup(new_url);
		g_ptr_array_add(uploaded->update_urls, update);
	}
	return g_steal_pointer(&uploaded);
}

/* A string member of an action, or NULL when absent or null. */
static gboolean
read_action_string(JsonObject *object, const char *field, guint index,
                   gboolean required, char **value, GError **error)
{
	JsonNode *node = json_object_get_member(object, field);
	g_autofree char *name = NULL;

	if ((node == NULL || JSON_NODE_HOLDS_NULL(node)) && !required)
		return TRUE;
	if (node_string(node) != NULL) {
		*value = g_strdup(node_string(node));
		return TRUE;
	}
	name = g_strdup_printf("actions[%u].%s", index, field);
	bad_answer(error, name, "a string");
	return FALSE;
}

static gboolean
read_action_seconds(JsonObject *object, const char *field, guint index,
                    gint64 *value, GError **error)
{
	JsonNode *node = json_object_get_member(object, field);
	g_autofree char *name = NULL;

	*value = -1;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (is_number(node)) {
		*value = MAX(get_seconds(node), -1);
		return TRUE;
	}
	name = g_strdup_printf("actions[%u].%s", index, field);
	bad_answer(error, name, "a number");
	return FALSE;
}

/* Unix seconds written as a number, or an ISO 8601 time in a string. */
static gboolean
read_action_time(JsonObject *object, guint index, gint64 *value, GError **error)
{
	JsonNode *node = json_object_get_member(object, "timestamp");
	g_autofree char *name = NULL;

	if (is_number(node)) {
		*value = get_seconds(node);
		return TRUE;
	}
	if (bridge_gpodder_parse_time(node_string(node), value))
		return TRUE;
	name = g_strdup_printf("actions[%u].timestamp", index);
	bad_answer(error, name, "an ISO 8601 time");
	return FALSE;
}

/* The action at @index of @node, or NULL with @error unset if unknown. */
static BridgeGpodderAction *
read_action(JsonNode *node, guint index, GError **error)
{
	g_autoptr(BridgeGpodderAction) action = NULL;
	g_autofree char *kind = NULL;
	JsonObject *object;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_autofree char *name = g_strdup_printf("actions[%u]", index);

		bad_answer(error, name, "an object");
		return NULL;
	}
	object = json_node_get_object(node);
	action = g_new0(BridgeGpodderAction, 1);
	if (!read_action_string(object, "podcast", index, TRUE,
	                        &action->podcast, error) ||
	    !read_action_string(object, "episode", index, TRUE,
	                        &action->episode, error) ||
	    !read_action_string(object, "guid", index, FALSE, &action->guid,
	                        error) ||
	    !read_action_string(object, "action", index, TRUE, &kind, error) ||
	    !read_action_string(object, "device", index, FALSE, &action->device,
	                        error) ||
	    !read_action_time(object, index, &action->timestamp, error) ||
	    !read_action_seconds(object, "started", index, &action->started,
	                         error) ||
	    !read_action_seconds(object, "position", index, &action->position,
	                         error) ||
	    !read_action_seconds(object, "total", index, &action->total, error))
		return NULL;
	if (!bridge_gpodder_action_kind_from_string(kind, &action->action)) {
		g_debug("leaving out an episode action '%s' of %s", kind,
		        action->episode);
		return NULL;
	}
	return g_steal_pointer(&action);
}

GPtrArray *
bridge_gpodder_actions_from_json(const char *data, gsize length,
                                 gint64 *timestamp, GError **error)
{
	g_autoptr(JsonNode) root = parse(data, length, JSON_NODE_OBJECT, error);
	g_autoptr(GPtrArray) actions = NULL;
	JsonObject *object;
	JsonNode *node;
	JsonArray *array;

	if (root == NULL)
		return NULL;
	object = json_node_get_object(root);
	if (!read_timestamp(object, "timestamp", timestamp, error))
		return NULL;
	node = json_object_get_member(object, "actions");
	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node)) {
		bad_answer(error, "actions", "an array");
		return NULL;
	}
	array = json_node_get_array(node);
	actions = g_ptr_array_new_full(
	        json_array_get_length(array),
	        (GDestroyNotify)bridge_gpodder_action_free);
	for (guint i = 0; i < json_array_get_length(array); i++) {
		g_autoptr(GError) local = NULL;
		BridgeGpodderAction *action = read_action(
		        json_array_get_element(array, i), i, &local);

		if (local != NULL) {
			g_propagate_error(error, g_steal_pointer(&local));
			return NULL;
		}
		if (action != NULL)
			g_ptr_array_add(actions, action);
	}
	return g_steal_pointer(&actions);
}

/* A non-empty string member of @object. */
static char *
read_string(JsonObject *object, const char *field, const char *name,
            GError **error)
{
	JsonNode *node =
	        object != NULL ? json_object_get_member(object, field) : NULL;
	const char *value = node_string(node);

	if (value == NULL || *value == '\0') {
		bad_answer(error, name, "a string");
		return NULL;
	}
	return g_strdup(value);
}

BridgeGpodderLogin *
bridge_gpodder_login_from_json(const char *data, gsize length, GError **error)
{
	g_autoptr(JsonNode) root = parse(data, length, JSON_NODE_OBJECT, error);
	g_autoptr(BridgeGpodderLogin) login = NULL;
	JsonObject *object;
	JsonNode *poll;
	JsonObject *poll_object = NULL;

	if (root == NULL)
		return NULL;
	object = json_node_get_object(root);
	poll = json_object_get_member(object, "poll");
	if (poll != NULL && JSON_NODE_HOLDS_OBJECT(poll))
		poll_object = json_node_get_object(poll);
	login = g_new0(BridgeGpodderLogin, 1);
	login->login_url = read_string(object, "login", "login", error);
	if (login->login_url == NULL)
		return NULL;
	login->poll_endpoint =
	        read_string(poll_object, "endpoint", "poll.endpoint", error);
	if (login->poll_endpoint == NULL)
		return NULL;
	login->token = read_string(poll_object, "token", "poll.token", error);
	if (login->token == NULL)
		return NULL;
	return g_steal_pointer(&login);
}

BridgeGpodderCredentials *
bridge_gpodder_credentials_from_json(const char *data, gsize length,
                                     GError **error)
{
	g_autoptr(JsonNode) root = parse(data, length, JSON_NODE_OBJECT, error);
	g_autoptr(BridgeGpodderCredentials) credentials = NULL;
	JsonObject *object;

	if (root == NULL)
		return NULL;
	object = json_node_get_object(root);
	credentials = g_new0(BridgeGpodderCredentials, 1);
	credentials->server = read_string(object, "server", "server", error);
	if (credentials->server == NULL)
		return NULL;
	credentials->login_name =
	        read_string(object, "loginName", "loginName", error);
	if (credentials->login_name == NULL)
		return NULL;
	credentials->app_password =
	        read_string(object, "appPassword", "appPassword", error);
	if (credentials->app_password == NULL)
		return NULL;
	return g_steal_pointer(&credentials);
}

char *
bridge_gpodder_actions_save(GPtrArray *actions)
{
	return bridge_gpodder_actions_to_json(actions, 0, actions->len, "");
}

GPtrArray *
bridge_gpodder_actions_load(const char *text, GError **error)
{
	g_autofree char *answer =
	        g_strdup_printf("{\"actions\":%s,\"timestamp\":0}", text);
	gint64 timestamp;

	return bridge_gpodder_actions_from_json(answer, strlen(answer),
	                                        &timestamp, error);
}
