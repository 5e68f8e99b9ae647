"""arena_gen/envs/repo/agents"""
