/*
** program.h: what compilation prepares for the evaluator (program.c).
*/
#ifndef COAX_SCHEMA_PROGRAM_H
#define COAX_SCHEMA_PROGRAM_H

#include "schema/compiled.h"

/* Points "required" at the node's "properties" table, so that a name
** there is found by one probe per member of the instance. */
bool cc_link_required(cc *c, skw *ks, size_t nk);

/* Prepares the keywords ks[0..nk) of node 'n' (before they are copied to
** n->kw): their charges, name tables and type masks, and the node's run. */
coax_code cc_program(cc *c, snode *n, skw *ks, size_t nk);

/* Marks the nodes that apply a leaf alone (LEAF_REF, LEAF_ANYOF), once
** every node is compiled and no cycle of in-place references was found. */
coax_code cc_mark_leaves(cc *c);

/* What a run from 'from' can apply, once every node it needs is compiled:
** the sum of its nodes' sizes, each once, into *weight (the schema's size
** for the default step budget) and whether a $dynamicRef or $recursiveRef
** is among them into *dynamic (unless NULL). A resource entered brings the
** targets a dynamic reference may take while it is in the scope: its
** dynamic anchors and, with "$recursiveAnchor", its root. */
coax_code cc_reach(cc *c, const snode *from, uint64_t *weight, bool *dynamic);

#endif
