-- What an agent may do with each tool attached to it: policy allow or deny (a denied tool is not listed, and a call to
-- it is refused with a tool error); calls_per_minute, when set, caps the agent's calls to the tool.
ALTER TABLE prompt_tool_bindings ADD COLUMN policy TEXT NOT NULL DEFAULT 'allow';
ALTER TABLE prompt_tool_bindings ADD COLUMN calls_per_minute INTEGER;
