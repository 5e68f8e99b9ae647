"""arena_gen/envs/energy/agents"""
